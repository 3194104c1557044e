import type { Price } from "../model/pricing.js";
import type { ReportRun, ReportTask } from "../report/aggregate.js";
import { type SpendLimits, type WorstCase, worstCase } from "./worst-case.js";

/** What the forecast needs of one task of the batch. */
export type PlannedTask = {
  name: string;
  model: string;
  limits: SpendLimits;
  /** Undefined when the model has no price. */
  price: Price | undefined;
  /** How many times the batch runs the task (its trials); each run can spend its worst case. */
  runs: number;
  /** The most attempts one run can take (`--retry-errors`); each can spend the worst case too. */
  maxAttempts: number;
};

/** What earlier runs of a task say one run costs and takes: their means. */
export type Expected = {
  /** The earlier runs the means are of. */
  runCount: number;
  /** Null when none of them had a known cost. */
  costUsd: number | null;
  durationMs: number;
};

/** One task's forecast: its worst case over all its runs, and what history expects of them. */
export type TaskForecast = {
  name: string;
  model: string;
  runs: number;
  /** The most attempts one run can take (`--retry-errors`). */
  maxAttempts: number;
  /** One run's worst case. */
  perRun: WorstCase;
  /** `perRun` times `runs`, times the attempts each run can take. */
  worstTokens: number;
  worstUsd: number | null;
  /** Undefined: no earlier run of this task with this model. */
  expected: Expected | undefined;
};

/** The batch's forecast: each task's, and their sums. */
export type Forecast = {
  tasks: TaskForecast[];
  /** The priced tasks' worst cases summed; `unpricedTasks` are left out (their worst is unknown). */
  worstUsd: number;
  unpricedTasks: TaskForecast[];
  worstTokens: number;
  /** Over the tasks with history only; `taskCount` says how many that is. */
  expected: { taskCount: number; costUsd: number; durationMs: number; wallTimeMs: number };
};

/** Statuses of runs that did not end on their own (stopped from outside, or never started). */
const NOT_OWN_ENDINGS = new Set(["skipped", "not_run", "interrupted", "cancelled", "budget"]);

/** A run's cost or duration past these is taken for a broken or hostile report, and left out. */
const MAX_RUN_COST_USD = 1_000_000;
const MAX_RUN_DURATION_MS = 30 * 24 * 3_600_000;

/**
 * The forecast of a batch: each task's worst case (see `worstCase`) times its runs, and, from
 * `history` (earlier reports' tasks), the mean cost and duration of its earlier runs with the same
 * model that ended on their own. `concurrency` gives the wall time the expected durations take
 * when the tasks' runs start in order, `concurrency` at a time.
 */
export function forecastBatch(
  tasks: readonly PlannedTask[],
  history: readonly ReportTask[],
  concurrency: number,
): Forecast {
  const historyRuns = runsByName(history);
  const forecasts = tasks.map((task): TaskForecast => {
    const perRun = worstCase(task.limits, task.price);
    const attempts = task.runs * task.maxAttempts;
    return {
      name: task.name,
      model: task.model,
      runs: task.runs,
      maxAttempts: task.maxAttempts,
      perRun,
      worstTokens: perRun.tokens * attempts,
      worstUsd: perRun.usd === null ? null : perRun.usd * attempts,
      expected: expectedOf(task, historyRuns.get(task.name) ?? []),
    };
  });
  const withHistory = forecasts.flatMap((task) =>
    task.expected === undefined ? [] : [{ runs: task.runs, expected: task.expected }],
  );
  const durations = withHistory.flatMap(({ runs, expected }) =>
    Array<number>(runs).fill(expected.durationMs),
  );
  return {
    tasks: forecasts,
    worstUsd: sum(forecasts.map((task) => task.worstUsd ?? 0)),
    unpricedTasks: forecasts.filter((task) => task.worstUsd === null),
    worstTokens: sum(forecasts.map((task) => task.worstTokens)),
    expected: {
      taskCount: withHistory.length,
      costUsd: sum(withHistory.map(({ runs, expected }) => (expected.costUsd ?? 0) * runs)),
      durationMs: sum(durations),
      wallTimeMs: poolWallTimeMs(durations, concurrency),
    },
  };
}

/** The earlier reports' runs by task name, in the reports' order. */
function runsByName(history: readonly ReportTask[]): Map<string, ReportRun[]> {
  const byName = new Map<string, ReportRun[]>();
  for (const earlier of history) {
    const runs = byName.get(earlier.name);
    if (runs === undefined) byName.set(earlier.name, [...earlier.runs]);
    else runs.push(...earlier.runs);
  }
  return byName;
}

/** The means over the task's earlier runs (`earlierRuns`) with its model that ended on their own. */
function expectedOf(task: PlannedTask, earlierRuns: readonly ReportRun[]): Expected | undefined {
  const runs = earlierRuns.filter(
    (run) =>
      run.model === task.model &&
      !NOT_OWN_ENDINGS.has(run.status) &&
      run.durationMs <= MAX_RUN_DURATION_MS &&
      (run.costUsd ?? 0) <= MAX_RUN_COST_USD,
  );
  if (runs.length === 0) return undefined;
  const costs = runs.flatMap((run) => (run.costUsd === null ? [] : [run.costUsd]));
  return {
    runCount: runs.length,
    costUsd: costs.length === 0 ? null : sum(costs) / costs.length,
    durationMs: sum(runs.map((run) => run.durationMs)) / runs.length,
  };
}

/** How long `durations` take in a pool of `concurrency`, each starting on the first free slot. */
function poolWallTimeMs(durations: readonly number[], concurrency: number): number {
  const slots = Array<number>(Math.min(concurrency, durations.length)).fill(0);
  for (const duration of durations) {
    let first = 0;
    for (const [index, busyUntil] of slots.entries()) {
      if (busyUntil < (slots[first] ?? 0)) first = index;
    }
    slots[first] = (slots[first] ?? 0) + duration;
  }
  return slots.reduce((longest, slot) => Math.max(longest, slot), 0);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
