import type { BatchLimits } from "../batch/batch-budget.js";
import type { Forecast, TaskForecast } from "../batch/forecast.js";
import { formatCost, formatCostCeiling, formatCount, formatDuration } from "../format.js";
import { type Column, formatMarkdownTable } from "../report/markdown-table.js";

/** How many task names a line lists before `and N more`. */
const MAX_NAMES = 10;

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "model", align: "left", isText: true },
  { header: "runs", align: "right" },
  { header: "worst case", align: "right" },
  { header: "bound by", align: "left" },
  { header: "worst tokens", align: "right" },
];

/** The columns of what earlier runs let one expect, with `--history`. */
const HISTORY_COLUMNS: readonly Column[] = [
  { header: "expected", align: "right" },
  { header: "time", align: "right" },
  { header: "history", align: "right" },
];

/**
 * `plan`'s output: a table of the tasks' worst cases (and, with history, what to expect), then
 * what the figures mean and how the worst case compares with the budgets.
 */
export function formatForecast(
  forecast: Forecast,
  options: { hasHistory: boolean; concurrency: number; budget: BatchLimits },
): string {
  const columns = [...COLUMNS, ...(options.hasHistory ? HISTORY_COLUMNS : [])];
  const rows = forecast.tasks.map((task) => taskRow(task, options.hasHistory));
  rows.push(totalRow(forecast, options.hasHistory));
  return [
    formatMarkdownTable(columns, rows, "plain"),
    "",
    ...worstCaseLines(forecast),
    ...expectedLines(forecast, options),
    ...budgetLines(forecast, options.budget),
  ].join("\n");
}

function taskRow(task: TaskForecast, hasHistory: boolean): string[] {
  const row = [
    task.name,
    task.model,
    formatCount(task.runs),
    task.worstUsd === null ? "unknown" : formatCostCeiling(task.worstUsd),
    task.perRun.boundBy,
    formatCount(task.worstTokens),
  ];
  if (!hasHistory) return row;
  const { expected } = task;
  if (expected === undefined) return [...row, "-", "-", "none"];
  return [
    ...row,
    expected.costUsd === null ? "unknown" : formatCost(expected.costUsd * task.runs),
    formatDuration(expected.durationMs * task.runs),
    `${formatCount(expected.runCount)} ${expected.runCount === 1 ? "run" : "runs"}`,
  ];
}

function totalRow(forecast: Forecast, hasHistory: boolean): string[] {
  const row = [
    "total",
    "",
    formatCount(totalRuns(forecast)),
    worstUsdText(forecast),
    "",
    formatCount(forecast.worstTokens),
  ];
  if (!hasHistory) return row;
  const { expected } = forecast;
  return [
    ...row,
    formatCost(expected.costUsd),
    formatDuration(expected.durationMs),
    `${expected.taskCount}/${forecast.tasks.length} tasks`,
  ];
}

/** The runs of every task. */
function totalRuns(forecast: Forecast): number {
  return forecast.tasks.reduce((total, task) => total + task.runs, 0);
}

/** `$1.23`, or `$1.23 + unknown` when some task has no price. */
function worstUsdText(forecast: Forecast): string {
  const unknown = forecast.unpricedTasks.length > 0 ? " + unknown" : "";
  return `${formatCostCeiling(forecast.worstUsd)}${unknown}`;
}

/** `task (model)` of each task without a price. */
function unpricedNames(forecast: Forecast): string[] {
  return forecast.unpricedTasks.map((task) => `${task.name} (${task.model})`);
}

function worstCaseLines(forecast: Forecast): string[] {
  const attempts = Math.max(1, ...forecast.tasks.map((task) => task.maxAttempts));
  const retried = attempts === 1 ? "" : `, each up to ${attempts} attempts with --retry-errors`;
  const lines = [
    `worst case ${worstUsdText(forecast)} and ${formatCount(forecast.worstTokens)} tokens for ${plural(forecast.tasks.length, "task")} (${plural(totalRuns(forecast), "run")}${retried}): every limit used up at the model's dearest token prices (README: Forecast)`,
  ];
  if (forecast.unpricedTasks.length > 0) {
    lines.push(
      `no price is known for the model of ${listOf(unpricedNames(forecast))}: their worst case is unknown, not counted above; add prices with --prices FILE`,
    );
  }
  return lines;
}

function expectedLines(
  forecast: Forecast,
  options: { hasHistory: boolean; concurrency: number },
): string[] {
  if (!options.hasHistory) {
    return ["expected spend and time: give earlier report.json files with --history FILE"];
  }
  const { expected } = forecast;
  const lines = [
    `expected ${formatCost(expected.costUsd)} and ${formatDuration(expected.durationMs)} of run time (about ${formatDuration(expected.wallTimeMs)} at --concurrency ${options.concurrency}), from the earlier runs of ${expected.taskCount} of ${plural(forecast.tasks.length, "task")}`,
  ];
  const without = forecast.tasks.filter((task) => task.expected === undefined);
  if (without.length > 0) {
    lines.push(
      `no earlier run with the same model, so nothing expected, for ${listOf(without.map((task) => task.name))}`,
    );
  }
  return lines;
}

function budgetLines(forecast: Forecast, budget: BatchLimits): string[] {
  const lines: string[] = [];
  if (budget.maxUsd !== undefined) {
    lines.push(
      forecast.worstUsd > budget.maxUsd
        ? `--budget-usd ${formatCost(budget.maxUsd)}: the worst case exceeds it; with --refuse-over-budget agent-run refuses to start this batch`
        : `--budget-usd ${formatCost(budget.maxUsd)}: the worst case fits`,
    );
  }
  if (budget.maxTokens !== undefined) {
    lines.push(
      forecast.worstTokens > budget.maxTokens
        ? `--budget-tokens ${formatCount(budget.maxTokens)}: the worst case exceeds it; with --refuse-over-budget agent-run refuses to start this batch`
        : `--budget-tokens ${formatCount(budget.maxTokens)}: the worst case fits`,
    );
  }
  return lines;
}

/**
 * Why the batch's worst case does not fit its budgets, naming its dearest tasks first; undefined
 * when it fits. A task without a price never fits a USD budget (its worst case is unknown).
 */
export function budgetOverrun(
  forecast: Forecast,
  budget: BatchLimits,
): { message: string; usd: boolean; tokens: boolean } | undefined {
  const problems: string[] = [];
  const { maxUsd, maxTokens } = budget;
  if (maxUsd !== undefined && forecast.unpricedTasks.length > 0) {
    problems.push(
      `the worst case of ${listOf(unpricedNames(forecast))} is unknown (no price), so it may exceed --budget-usd ${formatCost(maxUsd)}`,
    );
  }
  if (maxUsd !== undefined && forecast.worstUsd > maxUsd) {
    const dearest = [...forecast.tasks].sort((a, b) => (b.worstUsd ?? 0) - (a.worstUsd ?? 0));
    const names = dearest.map(
      (task) =>
        `${task.name} ${task.worstUsd === null ? "unknown" : formatCostCeiling(task.worstUsd)}`,
    );
    problems.push(
      `the worst case, ${formatCostCeiling(forecast.worstUsd)}, exceeds --budget-usd ${formatCost(maxUsd)}: ${listOf(names)}`,
    );
  }
  const usd = problems.length > 0;
  const tokens = maxTokens !== undefined && forecast.worstTokens > maxTokens;
  if (tokens) {
    const largest = [...forecast.tasks].sort((a, b) => b.worstTokens - a.worstTokens);
    const names = largest.map((task) => `${task.name} ${formatCount(task.worstTokens)}`);
    problems.push(
      `the worst case, ${formatCount(forecast.worstTokens)} tokens, exceeds --budget-tokens ${formatCount(maxTokens)}: ${listOf(names)}`,
    );
  }
  if (problems.length === 0) return undefined;
  return { message: problems.join("; and "), usd, tokens };
}

/** `a, b and c`, or the first `MAX_NAMES` and `and N more`. */
function listOf(names: readonly string[]): string {
  const shown = names.slice(0, MAX_NAMES);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more`;
  return shown.length <= 1
    ? shown.join("")
    : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1) ?? ""}`;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${count === 1 ? noun : `${noun}s`}`;
}
