import type { Usage } from "../model/model-client.js";
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

/** One task's line in a report. */
export type ReportTask = {
  name: string;
  taskFile: string;
  model: string;
  status: string;
  passed: boolean;
  error: string | null;
  steps: number;
  usage: Usage;
  totalTokens: number;
  /** Null when the model's price was unknown. */
  costUsd: number | null;
  durationMs: number;
  changedFileCount: number;
  checkCount: number;
  failedChecks: FailedCheck[];
  /** A completed task whose final answer went past a token or cost limit; null for the rest. */
  limitExceededByFinalReply: LimitExceededJson | null;
  /**
   * How much of the agent's plan was completed: null when it wrote none, undefined for a task
   * without the plan tool.
   */
  plan: PlanProgress | null | undefined;
};

/** How much of an agent's plan was completed. */
export type PlanProgress = { completed: number; total: number };

/** A report's totals, computed from its tasks alone. */
export type ReportTotals = {
  tasks: number;
  passed: number;
  failed: number;
  /** passed / tasks, 0 for an empty report. */
  passRate: number;
  /** How many tasks ended with each status, keys sorted. */
  statuses: Record<string, number>;
  steps: number;
  usage: Usage;
  totalTokens: number;
  /** The known costs summed; tasks without a price count as 0 and are counted in `unpricedTasks`. */
  costUsd: number;
  unpricedTasks: number;
  /** The tasks' durations summed (not wall time: tasks may have run at once or on other machines). */
  durationMs: number;
  changedFileCount: number;
  checkCount: number;
  failedCheckCount: number;
};

/**
 * A report over runs. It holds nothing about where or when the runs were read, and its tasks are
 * sorted by name, so reports over the same runs are equal however they were split into folders.
 */
export type Report = { tasks: ReportTask[]; totals: ReportTotals };

/** Aggregates runs (from one batch or many shards) into one report. */
export function buildReport(runs: readonly RunSummary[]): Report {
  const tasks = runs.map(reportTask).sort((a, b) => compareNames(a.name, b.name));
  return { tasks, totals: computeTotals(tasks) };
}

/** The totals of a list of tasks; also used when a `report.json` is read back. */
export function computeTotals(tasks: readonly ReportTask[]): ReportTotals {
  const sum = (pick: (task: ReportTask) => number) =>
    tasks.reduce((total, task) => total + pick(task), 0);
  const passed = tasks.filter((task) => task.passed).length;
  const statuses: Record<string, number> = {};
  for (const status of [...new Set(tasks.map((task) => task.status))].sort(compareNames)) {
    statuses[status] = tasks.filter((task) => task.status === status).length;
  }
  return {
    tasks: tasks.length,
    passed,
    failed: tasks.length - passed,
    passRate: tasks.length === 0 ? 0 : passed / tasks.length,
    statuses,
    steps: sum((task) => task.steps),
    usage: {
      inputTokens: sum((task) => task.usage.inputTokens),
      outputTokens: sum((task) => task.usage.outputTokens),
      cacheCreationInputTokens: sum((task) => task.usage.cacheCreationInputTokens),
      cacheReadInputTokens: sum((task) => task.usage.cacheReadInputTokens),
    },
    totalTokens: sum((task) => task.totalTokens),
    costUsd: roundUsd(sum((task) => task.costUsd ?? 0)),
    unpricedTasks: tasks.filter((task) => task.costUsd === null).length,
    durationMs: sum((task) => task.durationMs),
    changedFileCount: sum((task) => task.changedFileCount),
    checkCount: sum((task) => task.checkCount),
    failedCheckCount: sum((task) => task.failedChecks.length),
  };
}

/** Task names in a fixed order that does not depend on the locale (so reports are byte-stable). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The totals' cost for display: null when no task had a known price (so not "$0.0000"). */
export function shownCostUsd(
  totals: Pick<ReportTotals, "tasks" | "unpricedTasks" | "costUsd">,
): number | null {
  return totals.tasks > 0 && totals.unpricedTasks === totals.tasks ? null : totals.costUsd;
}

/** Rounds to a millionth of a dollar, so sums of float costs print and compare cleanly. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

function reportTask(run: RunSummary): ReportTask {
  return {
    name: run.name,
    taskFile: run.taskFile,
    model: run.model,
    status: run.status,
    passed: run.passed,
    error: run.error,
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
  };
}
