import { roundMillionths } from "../format.js";
import type { Usage } from "../model/model-client.js";
import type { EarlierAttempt } from "../transcript/trials.js";
import { type TaskFingerprint, taskFingerprint } from "./fingerprint.js";
import { type PassEstimate, passEstimates } from "./pass-at-k.js";
import { runLabel } from "./run-folders.js";
import type { LimitExceededJson, RunSummary } from "./run-summary.js";

/** A check that failed, with what the report shows of it. */
export type FailedCheck = {
  name: string;
  kind: string;
  /** The check's line in the task file. */
  line: number;
  message: string;
  /** The command's output for `run` checks (capped when recorded), else null. */
  output: string | null;
};

/** One run of a task in a report: the attempt that counts for one of its trials. */
export type ReportRun = {
  /** Which trial it is, from 1 (1 for a task run once). */
  trial: number;
  /** Attempts made at the trial: 1, unless earlier ones failed on infrastructure (`--retry-errors`). */
  attempts: number;
  model: string;
  status: string;
  passed: boolean;
  error: string | null;
  /** For `error`: what it failed on (`api`, `workspace`, `other`); null for the other statuses. */
  errorKind: string | null;
  steps: number;
  usage: Usage;
  totalTokens: number;
  /** Null when the model's price was unknown. */
  costUsd: number | null;
  durationMs: number;
  changedFileCount: number;
  checkCount: number;
  failedChecks: FailedCheck[];
  /** A completed run whose final answer went past a token or cost limit; null for the rest. */
  limitExceededByFinalReply: LimitExceededJson | null;
  /**
   * How much of the agent's plan was completed: null when it wrote none, undefined for a task
   * without the plan tool.
   */
  plan: PlanProgress | null | undefined;
  /** The earlier attempts, which failed on infrastructure; they do not count. */
  earlierAttempts: readonly EarlierAttempt[];
};

/** How much of an agent's plan was completed. */
export type PlanProgress = { completed: number; total: number };

/** One task in a report: its runs, one per trial, and how many passed. */
export type ReportTask = {
  name: string;
  taskFile: string;
  /** By trial; at least one. */
  runs: ReportRun[];
  trials: number;
  passedTrials: number;
  /** passedTrials / trials. */
  passRate: number;
  /** Some trials passed and some did not. */
  isFlaky: boolean;
  /** Every trial passed. */
  passed: boolean;
  /** What must match for a comparison (see `taskFingerprint`); null when a run recorded none. */
  fingerprint: TaskFingerprint | null;
};

/** A report's totals, computed from its tasks alone. */
export type ReportTotals = {
  tasks: number;
  /** Tasks whose every trial passed. */
  passed: number;
  failed: number;
  /** passed / tasks, 0 for an empty report. */
  passRate: number;
  trials: number;
  passedTrials: number;
  flakyTasks: number;
  /** pass@k and pass^k for k from 1 to the fewest trials of any task (see `passEstimates`). */
  estimates: PassEstimate[];
  /** How many trials ended with each status, keys sorted. */
  statuses: Record<string, number>;
  steps: number;
  usage: Usage;
  totalTokens: number;
  /** The known costs summed; trials without a price count as 0 and are counted in `unpricedTrials`. */
  costUsd: number;
  unpricedTrials: number;
  /** The trials' durations summed (not wall time: they may have run at once or on other machines). */
  durationMs: number;
  changedFileCount: number;
  checkCount: number;
  failedCheckCount: number;
  /** The earlier attempts that infrastructure failures made agent-run run again, and their spend. */
  retries: { attempts: number; totalTokens: number; costUsd: number };
};

/**
 * A report over runs. It holds nothing about where or when the runs were read, and its tasks are
 * sorted by name (their runs by trial), so reports over the same runs are equal however they were
 * split into folders.
 */
export type Report = { tasks: ReportTask[]; totals: ReportTotals };

/** Aggregates runs (from one batch or many shards) into one report, a task per name. */
export function buildReport(runs: readonly RunSummary[]): Report {
  const byName = new Map<string, RunSummary[]>();
  for (const run of runs) byName.set(run.name, [...(byName.get(run.name) ?? []), run]);
  const tasks = [...byName.entries()].map(([name, taskRuns]) => {
    const byTrial = [...taskRuns].sort((a, b) => (a.trial ?? 1) - (b.trial ?? 1));
    return reportTask(
      name,
      byTrial[0]?.taskFile ?? "",
      byTrial.map(reportRun),
      taskFingerprint(byTrial),
    );
  });
  return withTotals(tasks);
}

/** A report of `tasks` (sorted here), with their totals; also used when a `report.json` is read back. */
export function withTotals(tasks: readonly ReportTask[]): Report {
  const sorted = [...tasks].sort((a, b) => compareNames(a.name, b.name));
  return { tasks: sorted, totals: computeTotals(sorted) };
}

/** A task from its runs (by trial), with how many passed. */
export function reportTask(
  name: string,
  taskFile: string,
  runs: ReportRun[],
  fingerprint: TaskFingerprint | null,
): ReportTask {
  const passedTrials = runs.filter((run) => run.passed).length;
  return {
    name,
    taskFile,
    runs,
    trials: runs.length,
    passedTrials,
    passRate: runs.length === 0 ? 0 : passedTrials / runs.length,
    isFlaky: passedTrials > 0 && passedTrials < runs.length,
    passed: passedTrials === runs.length,
    fingerprint,
  };
}

function computeTotals(tasks: readonly ReportTask[]): ReportTotals {
  const runs = tasks.flatMap((task) => task.runs);
  const passed = tasks.filter((task) => task.passed).length;
  const statuses: Record<string, number> = {};
  for (const status of [...new Set(runs.map((run) => run.status))].sort(compareNames)) {
    statuses[status] = runs.filter((run) => run.status === status).length;
  }
  const earlier = runs.flatMap((run) => run.earlierAttempts);
  return {
    tasks: tasks.length,
    passed,
    failed: tasks.length - passed,
    passRate: tasks.length === 0 ? 0 : passed / tasks.length,
    passedTrials: runs.filter((run) => run.passed).length,
    flakyTasks: tasks.filter((task) => task.isFlaky).length,
    estimates: passEstimates(tasks),
    statuses,
    ...sumRuns(runs),
    retries: {
      attempts: earlier.length,
      totalTokens: earlier.reduce((total, attempt) => total + attempt.totalTokens, 0),
      costUsd: roundMillionths(
        earlier.reduce((total, attempt) => total + (attempt.costUsd ?? 0), 0),
      ),
    },
  };
}

/** What runs add up to: a task's trials, or a report's every run. */
export type RunSums = Pick<
  ReportTotals,
  | "trials"
  | "steps"
  | "usage"
  | "totalTokens"
  | "costUsd"
  | "unpricedTrials"
  | "durationMs"
  | "changedFileCount"
  | "checkCount"
  | "failedCheckCount"
>;

/** Runs' figures summed: known costs only (`unpricedTrials` counts the others). */
export function sumRuns(runs: readonly ReportRun[]): RunSums {
  const sum = (pick: (run: ReportRun) => number) =>
    runs.reduce((total, run) => total + pick(run), 0);
  return {
    trials: runs.length,
    steps: sum((run) => run.steps),
    usage: {
      inputTokens: sum((run) => run.usage.inputTokens),
      outputTokens: sum((run) => run.usage.outputTokens),
      cacheCreationInputTokens: sum((run) => run.usage.cacheCreationInputTokens),
      cacheReadInputTokens: sum((run) => run.usage.cacheReadInputTokens),
    },
    totalTokens: sum((run) => run.totalTokens),
    costUsd: roundMillionths(sum((run) => run.costUsd ?? 0)),
    unpricedTrials: runs.filter((run) => run.costUsd === null).length,
    durationMs: sum((run) => run.durationMs),
    changedFileCount: sum((run) => run.changedFileCount),
    checkCount: sum((run) => run.checkCount),
    failedCheckCount: sum((run) => run.failedChecks.length),
  };
}

/** Whether any task of the report ran more than once: its tables then show trials. */
export function hasTrials(report: Report): boolean {
  return report.tasks.some((task) => task.trials > 1);
}

/** A run as lists name it: the task, or `task/trial-2` when the task had several trials. */
export function labelOfRun(task: ReportTask, run: ReportRun): string {
  return task.trials > 1 || run.trial > 1
    ? runLabel({ name: task.name, trial: run.trial })
    : task.name;
}

/** Task names in a fixed order that does not depend on the locale (so reports are byte-stable). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The totals' cost for display: null when no trial had a known price (so not "$0.0000"). */
export function shownCostUsd(
  totals: Pick<ReportTotals, "trials" | "unpricedTrials" | "costUsd">,
): number | null {
  return totals.trials > 0 && totals.unpricedTrials === totals.trials ? null : totals.costUsd;
}

function reportRun(run: RunSummary): ReportRun {
  return {
    trial: run.trial ?? 1,
    attempts: run.attempt,
    model: run.model,
    status: run.status,
    passed: run.passed,
    error: run.error,
    errorKind: run.errorKind,
    steps: run.steps,
    usage: run.usage,
    totalTokens: run.totalTokens,
    costUsd: run.costUsd,
    durationMs: run.durationMs,
    changedFileCount: run.changedFileCount,
    checkCount: run.checks.length,
    failedChecks: run.checks
      .filter((check) => !check.passed)
      .map((check) => ({
        name: check.name,
        kind: check.kind,
        line: check.line,
        message: check.message,
        output: check.output,
      })),
    limitExceededByFinalReply: run.limitExceededByFinalReply,
    plan: run.plan,
    earlierAttempts: run.earlierAttempts,
  };
}
