import { limitFigures } from "../agent/limit-text.js";
import { oneLine } from "../format.js";
import {
  hasTrials,
  labelOfRun,
  type Report,
  type ReportRun,
  type ReportTotals,
  sumRuns,
} from "./aggregate.js";
import {
  checksCell,
  FIGURE_COLUMNS,
  figureCells,
  insertCell,
  spendText,
} from "./markdown-cells.js";
import { type Column, formatMarkdownTable } from "./markdown-table.js";
import { inlineText, type TextStyle } from "./markdown-text.js";
import { estimatesTable, trialsTable, trialsVerdictLine } from "./markdown-trials.js";

const MAX_MESSAGE_CHARS = 200;

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "status", align: "left", isText: true },
  { header: "passed", align: "left" },
  { header: "checks", align: "right" },
  ...FIGURE_COLUMNS,
];

/**
 * The report as a padded Markdown table, a one-line verdict, the failures (failed checks, else the
 * status), and notes (a final answer past a limit, a trial run again after an infrastructure
 * failure). A task run once is one row (its figures); when a task had several trials, a row is a
 * task's trials, and pass@k and pass^k follow the verdict. `markdown` escapes the text for job
 * summaries and pull requests; `plain` writes it as it is, for a terminal or a log.
 */
export function formatReportMarkdown(report: Report, style: TextStyle = "markdown"): string {
  const isTrials = hasTrials(report);
  const failures = report.tasks.flatMap((task) =>
    task.runs.flatMap((run) => failureLines(labelOfRun(task, run), run, style)),
  );
  const notes = report.tasks.flatMap((task) =>
    task.runs.flatMap((run) => noteLines(labelOfRun(task, run), run, style)),
  );
  return [
    isTrials ? trialsTable(report, style) : runsTable(report, style),
    "",
    isTrials ? trialsVerdictLine(report.totals) : verdictLine(report.totals),
    ...(isTrials ? ["", estimatesTable(report.totals.estimates)] : []),
    ...(failures.length === 0 ? [] : ["", "Failures:", ...failures]),
    ...(notes.length === 0 ? [] : ["", "Notes:", ...notes]),
  ].join("\n");
}

/** One row per task, each run once: its status, checks and figures. */
function runsTable(report: Report, style: TextStyle): string {
  // The plan column only when a task had the plan tool: other reports keep their shape.
  const hasPlans = report.tasks.some((task) => task.runs.some((run) => run.plan !== undefined));
  const columns = hasPlans ? [...COLUMNS.slice(0, 4), PLAN_COLUMN, ...COLUMNS.slice(4)] : COLUMNS;
  const rows = report.tasks.flatMap((task) =>
    task.runs.map((run) => withPlan(runRow(task.name, run), hasPlans, planCell(run))),
  );
  rows.push(withPlan(totalsRow(report.totals), hasPlans, ""));
  return formatMarkdownTable(columns, rows, style);
}

const PLAN_COLUMN: Column = { header: "plan", align: "right" };

/** A row with the plan cell after the checks cell, when the table has the column. */
function withPlan(row: string[], hasPlans: boolean, cell: string): string[] {
  return hasPlans ? insertCell(row, 4, cell) : row;
}

/** `3/4` plan items completed, `none` when the agent wrote no plan, `-` without the plan tool. */
function planCell(run: ReportRun): string {
  if (run.plan === undefined) return "-";
  return run.plan === null ? "none" : `${run.plan.completed}/${run.plan.total}`;
}

/**
 * `- task: its final reply went past max_tokens (1,234 of 1,000 tokens); …`, and for a trial run
 * again: `- task/trial-2: attempt 2 counts; attempt 1 ended with error (api): …`.
 */
function noteLines(label: string, run: ReportRun, style: TextStyle): string[] {
  const text = (value: string) => inlineText(value, style);
  const retried = run.earlierAttempts.map(
    (attempt, index) =>
      `- ${text(label)}: attempt ${run.attempts} counts; attempt ${index + 1} ended with ${text(attempt.status)}${attempt.errorKind === null ? "" : ` (${text(attempt.errorKind)})`}${attempt.error === null ? "" : `: ${text(oneLine(attempt.error, MAX_MESSAGE_CHARS))}`}`,
  );
  const exceeded = run.limitExceededByFinalReply;
  if (exceeded === null || (exceeded.limit !== "max_tokens" && exceeded.limit !== "max_cost")) {
    return retried;
  }
  const figures = limitFigures({ ...exceeded, limit: exceeded.limit });
  return [
    `- ${text(label)}: its final reply went past ${exceeded.limit} ${figures}; it completed, as no further call was made`,
    ...retried,
  ];
}

/** `2/3 passed (66.7%), 32,821 tokens, $0.0421`, noting trials whose cost is unknown and retries. */
export function verdictLine(totals: ReportTotals): string {
  const percent = totals.tasks === 0 ? "" : ` (${(totals.passRate * 100).toFixed(1)}%)`;
  return `${totals.passed}/${totals.tasks} passed${percent}, ${spendText(totals)}`;
}

function runRow(name: string, run: ReportRun): string[] {
  const sums = sumRuns([run]);
  return [name, run.status, run.passed ? "yes" : "no", checksCell(sums), ...figureCells(sums)];
}

function totalsRow(totals: ReportTotals): string[] {
  return [
    "total",
    "",
    `${totals.passed}/${totals.tasks}`,
    checksCell(totals),
    ...figureCells(totals),
  ];
}

/** `- task: check name — message` per failed check; a run failed by its status alone gets one line. */
function failureLines(label: string, run: ReportRun, style: TextStyle): string[] {
  if (run.passed) return [];
  const text = (value: string) => inlineText(value, style);
  const checks = run.failedChecks.map(
    (check) =>
      `- ${text(label)}: ${text(check.name)} — ${text(oneLine(check.message, MAX_MESSAGE_CHARS))}`,
  );
  if (run.status === "completed" && checks.length > 0) return checks;
  const error = run.error === null ? "" : ` — ${text(oneLine(run.error, MAX_MESSAGE_CHARS))}`;
  return [`- ${text(label)}: status ${text(run.status)}${error}`, ...checks];
}
