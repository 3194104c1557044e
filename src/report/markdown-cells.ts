import { formatCost, formatCount, formatDuration } from "../format.js";
import {
  compareNames,
  type ReportTask,
  type ReportTotals,
  type RunSums,
  shownCostUsd,
} from "./aggregate.js";
import type { Column } from "./markdown-table.js";

// Cells and phrases both report tables use: the one-trial table and the trials table.

/** The figures both tables end with, after their checks (and plan) cells. */
export const FIGURE_COLUMNS: readonly Column[] = [
  { header: "steps", align: "right" },
  { header: "tokens", align: "right" },
  { header: "cost", align: "right" },
  { header: "files", align: "right" },
  { header: "duration", align: "right" },
];

/** The cells of `FIGURE_COLUMNS` for summed runs: one run, a task's trials, or the totals. */
export function figureCells(sums: RunSums): string[] {
  return [
    String(sums.steps),
    formatCount(sums.totalTokens),
    formatCost(shownCostUsd(sums)),
    String(sums.changedFileCount),
    formatDuration(sums.durationMs),
  ];
}

/** The checks cell of summed runs: `2/3` checks passed, or `-` when there were none. */
export function checksCell(sums: RunSums): string {
  const checks = sums.checkCount;
  return checks === 0 ? "-" : `${checks - sums.failedCheckCount}/${checks}`;
}

/** `row` with `cell` inserted at `index` (a column some tables have, others not). */
export function insertCell(row: readonly string[], index: number, cell: string): string[] {
  return [...row.slice(0, index), cell, ...row.slice(index)];
}

/** `32,821 tokens, $0.0421`, with the trials whose cost is unknown and what retried attempts spent. */
export function spendText(totals: ReportTotals): string {
  const unpriced =
    totals.unpricedTrials === 0
      ? ""
      : ` (${totals.unpricedTrials} ${unpricedNoun(totals)} without a price, not counted)`;
  const { retries } = totals;
  const retried =
    retries.attempts === 0
      ? ""
      : `; plus ${retries.attempts} retried ${retries.attempts === 1 ? "attempt" : "attempts"}: ${formatCount(retries.totalTokens)} tokens, ${formatCost(retries.costUsd)}`;
  return `${formatCount(totals.totalTokens)} tokens, ${formatCost(shownCostUsd(totals))}${unpriced}${retried}`;
}

/** Tasks run once are counted as tasks, as they always were; trials as trials. */
function unpricedNoun(totals: ReportTotals): string {
  const one = totals.unpricedTrials === 1;
  if (totals.trials === totals.tasks) return one ? "task" : "tasks";
  return one ? "trial" : "trials";
}

/** `88.9%`. */
export function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** `2 completed, 1 max_steps`: the trials' statuses, the most common first. */
export function statusCounts(task: ReportTask): string {
  const counts = new Map<string, number>();
  for (const run of task.runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a, m], [b, n]) => n - m || compareNames(a, b))
    .map(([status, count]) => `${count} ${status}`)
    .join(", ");
}
