import { limitFigures } from "../agent/limit-text.js";
import { formatCost, formatCount, formatDuration, oneLine } from "../format.js";
import { type Report, type ReportTask, type ReportTotals, shownCostUsd } from "./aggregate.js";
import { type Column, formatMarkdownTable } from "./markdown-table.js";
import { inlineText, type TextStyle } from "./markdown-text.js";

const MAX_MESSAGE_CHARS = 200;

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "status", align: "left", isText: true },
  { header: "passed", align: "left" },
  { header: "checks", align: "right" },
  { header: "steps", align: "right" },
  { header: "tokens", align: "right" },
  { header: "cost", align: "right" },
  { header: "files", align: "right" },
  { header: "duration", align: "right" },
];

/**
 * The report as a padded Markdown table (one row per task, then totals), a one-line verdict, the
 * failures (failed checks, else the status), and notes on completed tasks whose final answer went
 * past a limit. `markdown` escapes the text for job summaries and pull requests; `plain` writes it
 * as it is, for a terminal or a log.
 */
export function formatReportMarkdown(report: Report, style: TextStyle = "markdown"): string {
  // The plan column only when a task had the plan tool: other reports keep their shape.
  const hasPlans = report.tasks.some((task) => task.plan !== undefined);
  const columns = hasPlans ? [...COLUMNS.slice(0, 4), PLAN_COLUMN, ...COLUMNS.slice(4)] : COLUMNS;
  const rows = report.tasks.map((task) => withPlan(taskRow(task), hasPlans, planCell(task)));
  rows.push(withPlan(totalsRow(report.totals), hasPlans, ""));
  const failures = report.tasks.flatMap((task) => failureLines(task, style));
  const notes = report.tasks.flatMap((task) => noteLines(task, style));
  return [
    formatMarkdownTable(columns, rows, style),
    "",
    verdictLine(report.totals),
    ...(failures.length === 0 ? [] : ["", "Failures:", ...failures]),
    ...(notes.length === 0 ? [] : ["", "Notes:", ...notes]),
  ].join("\n");
}

const PLAN_COLUMN: Column = { header: "plan", align: "right" };

/** A row with the plan cell after the checks cell, when the table has the column. */
function withPlan(row: string[], hasPlans: boolean, cell: string): string[] {
  return hasPlans ? [...row.slice(0, 4), cell, ...row.slice(4)] : row;
}

/** `3/4` plan items completed, `none` when the agent wrote no plan, `-` without the plan tool. */
function planCell(task: ReportTask): string {
  if (task.plan === undefined) return "-";
  return task.plan === null ? "none" : `${task.plan.completed}/${task.plan.total}`;
}

/** `- task: its final reply went past max_tokens (1,234 of 1,000 tokens); no further call was made`. */
function noteLines(task: ReportTask, style: TextStyle): string[] {
  const exceeded = task.limitExceededByFinalReply;
  if (exceeded === null || (exceeded.limit !== "max_tokens" && exceeded.limit !== "max_cost")) {
    return [];
  }
  const figures = limitFigures({ ...exceeded, limit: exceeded.limit });
  return [
    `- ${inlineText(task.name, style)}: its final reply went past ${exceeded.limit} ${figures}; it completed, as no further call was made`,
  ];
}

/** `2/3 passed (66.7%), 32,821 tokens, $0.0421`, noting tasks whose cost is unknown. */
export function verdictLine(totals: ReportTotals): string {
  const percent = totals.tasks === 0 ? "" : ` (${(totals.passRate * 100).toFixed(1)}%)`;
  const unpriced =
    totals.unpricedTasks === 0
      ? ""
      : ` (${totals.unpricedTasks} ${totals.unpricedTasks === 1 ? "task" : "tasks"} without a price, not counted)`;
  return `${totals.passed}/${totals.tasks} passed${percent}, ${formatCount(totals.totalTokens)} tokens, ${formatCost(shownCostUsd(totals))}${unpriced}`;
}

function taskRow(task: ReportTask): string[] {
  return [
    task.name,
    task.status,
    task.passed ? "yes" : "no",
    checkCell(task.checkCount, task.failedChecks.length),
    String(task.steps),
    formatCount(task.totalTokens),
    formatCost(task.costUsd),
    String(task.changedFileCount),
    formatDuration(task.durationMs),
  ];
}

function totalsRow(totals: ReportTotals): string[] {
  return [
    "total",
    "",
    `${totals.passed}/${totals.tasks}`,
    checkCell(totals.checkCount, totals.failedCheckCount),
    String(totals.steps),
    formatCount(totals.totalTokens),
    formatCost(shownCostUsd(totals)),
    String(totals.changedFileCount),
    formatDuration(totals.durationMs),
  ];
}

/** `2/3` checks passed, or `-` when there were none. */
function checkCell(checks: number, failed: number): string {
  return checks === 0 ? "-" : `${checks - failed}/${checks}`;
}

/** `- task: check name — message` per failed check; a task failed by its status alone gets one line. */
function failureLines(task: ReportTask, style: TextStyle): string[] {
  if (task.passed) return [];
  const text = (value: string) => inlineText(value, style);
  const checks = task.failedChecks.map(
    (check) =>
      `- ${text(task.name)}: ${text(check.name)} — ${text(oneLine(check.message, MAX_MESSAGE_CHARS))}`,
  );
  if (task.status === "completed" && checks.length > 0) return checks;
  const error = task.error === null ? "" : ` — ${text(oneLine(task.error, MAX_MESSAGE_CHARS))}`;
  return [`- ${text(task.name)}: status ${text(task.status)}${error}`, ...checks];
}
