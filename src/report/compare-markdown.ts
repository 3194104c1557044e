import { formatCost, formatCount, roundMillionths } from "../format.js";
import type { ReportTask } from "./aggregate.js";
import {
  formatP,
  type PerTrial,
  type ReportComparison,
  SIGNIFICANCE_LEVEL,
  type TaskComparison,
  VERDICTS,
  type Verdict,
} from "./compare.js";
import type { FingerprintDifference } from "./fingerprint-diff.js";
import { percent } from "./markdown-cells.js";
import { type Column, formatMarkdownTable } from "./markdown-table.js";
import { inlineText, type TextStyle } from "./markdown-text.js";

// `report --compare` as Markdown: the differences between the batches, the mean pass rate's
// change with its interval, the tasks by verdict, a table, and the verdict line.

/** How each verdict is listed, in this order. */
const VERDICT_LISTS: readonly [Verdict, string][] = [
  [
    "regressed",
    `Regressed (significant: Fisher's exact test, one-sided, p < ${SIGNIFICANCE_LEVEL})`,
  ],
  ["improved", `Improved (significant: Fisher's exact test, one-sided, p < ${SIGNIFICANCE_LEVEL})`],
  ["flaky", "Flaky (trials disagree; any change is within noise)"],
  ["pass_to_fail", "Pass → fail (not significant: too few trials)"],
  ["fail_to_pass", "Fail → pass (not significant: too few trials)"],
];

/** How the table and the lists name a verdict. */
const VERDICT_WORDS: Record<Verdict, string> = {
  regressed: "regressed",
  improved: "improved",
  flaky: "flaky",
  pass_to_fail: "pass → fail",
  fail_to_pass: "fail → pass",
  unchanged: "unchanged",
};

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "verdict", align: "left" },
  { header: "passed", align: "left" },
  { header: "p (drop)", align: "right" },
  { header: "steps/trial", align: "right" },
  { header: "tokens/trial", align: "right" },
  { header: "cost/trial", align: "right" },
];

/** Tasks a difference names before it says how many more. */
const MAX_TASKS_NAMED = 10;

/** The comparison as Markdown; `style` as for the report (`markdown` escapes untrusted text). */
export function formatComparisonMarkdown(
  comparison: ReportComparison,
  style: TextStyle = "markdown",
): string {
  const text = (value: string) => inlineText(value, style);
  return [
    headline(comparison),
    ...differenceLines(comparison.differences, text),
    "",
    meanRateLine(comparison),
    countsLine(comparison),
    ...taskLists(comparison, text),
    "",
    comparisonTable(comparison, style),
    "",
    verdictLine(comparison),
  ].join("\n");
}

/** `11/12 → 9/12 tasks passed every trial (36 → 36 trials)`. */
function headline(comparison: ReportComparison): string {
  const { base, next } = comparison;
  return `${base.totals.passed}/${base.totals.tasks} → ${next.totals.passed}/${next.totals.tasks} tasks passed every trial (${formatCount(base.totals.trials)} → ${formatCount(next.totals.trials)} trials)`;
}

function differenceLines(
  differences: readonly FingerprintDifference[],
  text: (value: string) => string,
): string[] {
  if (differences.length === 0)
    return [
      "",
      "Fingerprints: the same tasks, task files, models, limits, prices, tool protocol and agent-run version.",
    ];
  return [
    "",
    `Differences between the batches (${differences.length}):`,
    ...differences.map((difference) => {
      const mark = difference.isRefused ? " (refused without --allow-different)" : "";
      return `- ${text(differenceTitle(difference))}: ${text(difference.change)}${mark}; ${text(taskNames(difference.tasks))}`;
    }),
  ];
}

/** What a difference is about, in words. */
export function differenceTitle(difference: FingerprintDifference): string {
  switch (difference.kind) {
    case "task_set":
      return "task set";
    case "unrecorded":
      return "fingerprint";
    case "mixed":
      return "trials";
    case "task_sha256":
      return "task file (SHA-256)";
    case "tool_protocol":
      return "tool protocol";
    case "agent_run_version":
      return "agent-run version";
    default:
      return difference.kind;
  }
}

/** `3 tasks a, b, c`, or the first ten and how many more: `12 tasks a, …, j and 2 more`. */
export function taskNames(tasks: readonly string[]): string {
  const shown = tasks.slice(0, MAX_TASKS_NAMED);
  const more = tasks.length - shown.length;
  const list = more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
  return `${tasks.length === 1 ? "task" : `${tasks.length} tasks`} ${list}`;
}

/** `Mean pass rate 91.7% → 66.7%: -25.0 points, 95% interval [-41.7, -8.3] over 12 tasks`. */
function meanRateLine(comparison: ReportComparison): string {
  const { base, next, delta, interval } = comparison.meanRate;
  const level = Math.round(interval.level * 100);
  return `Mean pass rate ${percent(base)} → ${percent(next)}: ${points(delta)}, ${level}% interval [${points(interval.low, false)}, ${points(interval.high, false)}] (paired two-level bootstrap over the ${comparison.tasks.length} tasks in both)`;
}

function countsLine(comparison: ReportComparison): string {
  const count = (verdict: Verdict) =>
    comparison.tasks.filter((task) => task.verdict === verdict).length;
  const verdicts = VERDICTS.map((verdict) => `${count(verdict)} ${VERDICT_WORDS[verdict]}`);
  return `Tasks: ${verdicts.join(", ")}; ${comparison.added.length} new, ${comparison.missing.length} missing`;
}

/** Each verdict's tasks under its title (empty lists left out), then new and missing tasks. */
function taskLists(comparison: ReportComparison, text: (value: string) => string): string[] {
  const lists: [string, string[]][] = VERDICT_LISTS.map(([verdict, title]) => [
    title,
    comparison.tasks
      .filter((task) => task.verdict === verdict)
      .map(
        (task) =>
          `- ${text(task.name)}: ${passedText(task.base)} → ${passedText(task.next)} passed (${formatP(verdict === "improved" || verdict === "fail_to_pass" ? task.pRise : task.pDrop)})`,
      ),
  ]);
  lists.push(["New tasks", comparison.added.map((name) => `- ${text(name)}`)]);
  lists.push(["Missing tasks", comparison.missing.map((name) => `- ${text(name)}`)]);
  return lists.flatMap(([title, lines]) =>
    lines.length === 0 ? [] : ["", `${title} (${lines.length}):`, ...lines],
  );
}

function comparisonTable(comparison: ReportComparison, style: TextStyle): string {
  const rows = comparison.tasks.map((task) => taskRow(task));
  const sum = (side: "base" | "next", pick: (figures: PerTrial) => number | null) => {
    const values = comparison.tasks.map((task) => pick(task.perTrial[side]));
    return values.includes(null)
      ? null
      : values.reduce<number>((total, value) => total + (value ?? 0), 0);
  };
  const { base, next } = comparison;
  rows.push([
    "total",
    "",
    change(
      `${base.totals.passedTrials}/${base.totals.trials}`,
      `${next.totals.passedTrials}/${next.totals.trials}`,
    ),
    "",
    numberChange(sum("base", (f) => f.steps) ?? 0, sum("next", (f) => f.steps) ?? 0),
    numberChange(sum("base", (f) => f.totalTokens) ?? 0, sum("next", (f) => f.totalTokens) ?? 0),
    costChange(
      sum("base", (f) => f.costUsd),
      sum("next", (f) => f.costUsd),
    ),
  ]);
  return formatMarkdownTable(COLUMNS, rows, style);
}

function taskRow(task: TaskComparison): string[] {
  const { base, next } = task.perTrial;
  return [
    task.name,
    VERDICT_WORDS[task.verdict],
    change(passedText(task.base), passedText(task.next)),
    pValueCell(task.pDrop),
    numberChange(base.steps, next.steps),
    numberChange(base.totalTokens, next.totalTokens),
    costChange(base.costUsd, next.costUsd),
  ];
}

/** The line `--fail-on-regression` acts on. */
function verdictLine(comparison: ReportComparison): string {
  const { regression } = comparison;
  if (regression.isRegression) return `Regression: ${regression.reasons.join("; ")}.`;
  const regressed = regression.regressedTasks.length;
  const unnamed =
    regressed === 0
      ? ""
      : ` (${regressed === 1 ? "1 task" : `${regressed} tasks`} regressed, none named with --regression-task)`;
  return `No regression: the mean pass rate's interval reaches zero or above${unnamed}.`;
}

/** `0.050`, `< 0.001`, `1.000`: a p-value in a cell, as the lists and the viewer write it. */
function pValueCell(p: number): string {
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

function passedText(task: ReportTask): string {
  return `${task.passedTrials}/${task.trials}`;
}

/** A change in pass rate, in percentage points: `-25.0 points`, `+8.3 points`, `0.0`. */
function points(delta: number, hasUnit = true): string {
  const value = (delta * 100).toFixed(1);
  const signed = value === "0.0" || value === "-0.0" ? "0.0" : delta > 0 ? `+${value}` : value;
  return hasUnit ? `${signed} points` : signed;
}

/** `a → b`, or just `a` when nothing changed. */
function change(before: string, after: string): string {
  return before === after ? before : `${before} → ${after}`;
}

/** Per-trial figures, rounded to whole numbers: `4 → 6 (+2)`. */
function numberChange(before: number, after: number): string {
  const [a, b] = [Math.round(before), Math.round(after)];
  const delta = b - a;
  if (delta === 0) return formatCount(b);
  const sign = delta > 0 ? "+" : "-";
  return `${formatCount(a)} → ${formatCount(b)} (${sign}${formatCount(Math.abs(delta))})`;
}

function costChange(before: number | null, after: number | null): string {
  const delta = before === null || after === null ? 0 : roundMillionths(after - before);
  if (delta === 0) return change(formatCost(before), formatCost(after));
  const sign = delta > 0 ? "+" : "-";
  return `${formatCost(before)} → ${formatCost(after)} (${sign}${formatCost(Math.abs(delta))})`;
}
