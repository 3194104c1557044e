import { type Report, type ReportTask, type ReportTotals, sumRuns } from "./aggregate.js";
import {
  checksCell,
  FIGURE_COLUMNS,
  figureCells,
  insertCell,
  percent,
  spendText,
  statusCounts,
} from "./markdown-cells.js";
import { type Column, formatMarkdownTable } from "./markdown-table.js";
import type { TextStyle } from "./markdown-text.js";
import type { PassEstimate } from "./pass-at-k.js";

// The report's tables when a task had several trials: a row per task over its trials, and the
// batch's pass@k and pass^k.

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "passed", align: "right" },
  { header: "pass rate", align: "right" },
  { header: "flaky", align: "left" },
  { header: "statuses", align: "left", isText: true },
  { header: "checks", align: "right" },
  ...FIGURE_COLUMNS,
];

const ATTEMPTS_COLUMN: Column = { header: "attempts", align: "right" };

/**
 * A row per task: trials passed of trials run, its pass rate, `yes` when flaky (some trials passed,
 * some not), how many trials ended with each status, and its trials' figures summed; then the
 * totals, whose pass rate is the mean pass@1. The attempts column only when a trial was retried.
 */
export function trialsTable(report: Report, style: TextStyle): string {
  const hasRetries = report.totals.retries.attempts > 0;
  const columns = hasRetries
    ? [...COLUMNS.slice(0, 5), ATTEMPTS_COLUMN, ...COLUMNS.slice(5)]
    : COLUMNS;
  // The attempts cell goes after the statuses, when the table has the column.
  const withAttempts = (row: string[], attempts: number) =>
    hasRetries ? insertCell(row, 5, String(attempts)) : row;
  const { totals } = report;
  const rows = report.tasks.map((task) =>
    withAttempts(
      taskRow(task),
      task.runs.reduce((sum, run) => sum + run.attempts, 0),
    ),
  );
  rows.push(withAttempts(totalsRow(totals), totals.trials + totals.retries.attempts));
  return formatMarkdownTable(columns, rows, style);
}

function taskRow(task: ReportTask): string[] {
  const sums = sumRuns(task.runs);
  return [
    task.name,
    `${task.passedTrials}/${task.trials}`,
    percent(task.passRate),
    task.isFlaky ? "yes" : "",
    statusCounts(task),
    checksCell(sums),
    ...figureCells(sums),
  ];
}

function totalsRow(totals: ReportTotals): string[] {
  return [
    "total",
    `${totals.passedTrials}/${totals.trials}`,
    percent(meanPassAt1(totals)),
    String(totals.flakyTasks),
    "",
    checksCell(totals),
    ...figureCells(totals),
  ];
}

/**
 * `2/3 tasks passed every trial; 8/9 trials passed, mean pass@1 88.9%, 1 flaky task; 98,466
 * tokens, $0.1234`.
 */
export function trialsVerdictLine(totals: ReportTotals): string {
  const flaky = `${totals.flakyTasks} flaky ${totals.flakyTasks === 1 ? "task" : "tasks"}`;
  return `${totals.passed}/${totals.tasks} tasks passed every trial; ${totals.passedTrials}/${totals.trials} trials passed, mean pass@1 ${percent(meanPassAt1(totals))}, ${flaky}; ${spendText(totals)}`;
}

/** The ks shown past 10: the JSON has every one. */
const SHOWN_KS = new Set([1, 2, 3, 4, 5, 10, 20, 50, 100]);

/**
 * pass@k and pass^k by k, averaged over tasks: every k up to 5, then 10, 20, 50 and 100, and the
 * largest (the fewest trials of any task).
 */
export function estimatesTable(estimates: readonly PassEstimate[]): string {
  const largest = estimates.at(-1)?.k;
  const shown = estimates.filter((estimate) => SHOWN_KS.has(estimate.k) || estimate.k === largest);
  return formatMarkdownTable(
    [
      { header: "k", align: "right" },
      { header: "pass@k", align: "right" },
      { header: "pass^k", align: "right" },
    ],
    shown.map((estimate) => [
      String(estimate.k),
      percent(estimate.passAtK),
      percent(estimate.passHatK),
    ]),
  );
}

/** The batch's mean pass@1: its estimate for k = 1 (0 for a report of no tasks). */
function meanPassAt1(totals: ReportTotals): number {
  return totals.estimates[0]?.passAtK ?? 0;
}
