import { formatCost, formatCount } from "../format.js";
import {
  compareNames,
  type Report,
  type ReportTask,
  type ReportTotals,
  roundUsd,
  shownCostUsd,
  sumRuns,
} from "./aggregate.js";
import { statusCounts } from "./markdown-cells.js";
import { type Column, formatMarkdownTable } from "./markdown-table.js";
import { markdownText } from "./markdown-text.js";

/** One task present in both reports: what it was, what it is, and the differences. */
export type TaskComparison = {
  name: string;
  base: ReportTask;
  next: ReportTask;
  stepsDelta: number;
  tokensDelta: number;
  /** Null when either side's price is unknown. */
  costDeltaUsd: number | null;
};

/** How the whole reports differ (every task on each side, not only the shared ones). */
export type TotalsComparison = {
  base: ReportTotals;
  next: ReportTotals;
  passedDelta: number;
  stepsDelta: number;
  tokensDelta: number;
  /** Known costs only, as in the totals. */
  costDeltaUsd: number;
};

/** What changed from one report to the next; task names sorted. */
export type ReportComparison = {
  /** Passed in `base`, not in `next`: regressions. */
  passToFail: string[];
  /** Failed in `base`, passed in `next`. */
  failToPass: string[];
  /** Only in `next`. */
  added: string[];
  /** Only in `base`. */
  missing: string[];
  tasks: TaskComparison[];
  totals: TotalsComparison;
};

/** Compares two reports (for example last night's batch and tonight's) task by task. */
export function compareReports(base: Report, next: Report): ReportComparison {
  const baseByName = new Map(base.tasks.map((task) => [task.name, task]));
  const nextByName = new Map(next.tasks.map((task) => [task.name, task]));
  const tasks: TaskComparison[] = [];
  for (const nextTask of next.tasks) {
    const baseTask = baseByName.get(nextTask.name);
    if (baseTask !== undefined) tasks.push(compareTask(baseTask, nextTask));
  }
  tasks.sort((a, b) => compareNames(a.name, b.name));
  const names = (list: readonly ReportTask[], other: Map<string, ReportTask>) =>
    list
      .filter((task) => !other.has(task.name))
      .map((task) => task.name)
      .sort(compareNames);
  return {
    passToFail: tasks.filter((task) => task.base.passed && !task.next.passed).map((t) => t.name),
    failToPass: tasks.filter((task) => !task.base.passed && task.next.passed).map((t) => t.name),
    added: names(next.tasks, baseByName),
    missing: names(base.tasks, nextByName),
    tasks,
    totals: {
      base: base.totals,
      next: next.totals,
      passedDelta: next.totals.passed - base.totals.passed,
      stepsDelta: next.totals.steps - base.totals.steps,
      tokensDelta: next.totals.totalTokens - base.totals.totalTokens,
      costDeltaUsd: roundUsd(next.totals.costUsd - base.totals.costUsd),
    },
  };
}

function compareTask(base: ReportTask, next: ReportTask): TaskComparison {
  const before = figuresOf(base);
  const after = figuresOf(next);
  return {
    name: next.name,
    base,
    next,
    stepsDelta: after.steps - before.steps,
    tokensDelta: after.totalTokens - before.totalTokens,
    costDeltaUsd:
      before.costUsd === null || after.costUsd === null
        ? null
        : roundUsd(after.costUsd - before.costUsd),
  };
}

/** What the comparison shows of a task: its run's figures, or its trials' summed. */
export type TaskFigures = {
  status: string;
  steps: number;
  totalTokens: number;
  /** Null when no trial had a known price. */
  costUsd: number | null;
  failedChecks: string[];
};

export function figuresOf(task: ReportTask): TaskFigures {
  const sums = sumRuns(task.runs);
  const [only] = task.runs;
  return {
    status: task.runs.length === 1 && only !== undefined ? only.status : statusCounts(task),
    steps: sums.steps,
    totalTokens: sums.totalTokens,
    costUsd: shownCostUsd(sums),
    failedChecks: [
      ...new Set(task.runs.flatMap((run) => run.failedChecks.map((check) => check.name))),
    ],
  };
}

const COLUMNS: readonly Column[] = [
  { header: "task", align: "left", isText: true },
  { header: "passed", align: "left" },
  { header: "status", align: "left", isText: true },
  { header: "steps", align: "right" },
  { header: "tokens", align: "right" },
  { header: "cost", align: "right" },
];

/**
 * The comparison as Markdown: the flips first (pass → fail, fail → pass), new and missing tasks,
 * then a table of the shared tasks and the totals, each cell `before → after (delta)`.
 */
export function formatComparisonMarkdown(comparison: ReportComparison): string {
  const { base, next } = comparison.totals;
  const headline =
    `${base.passed}/${base.tasks} → ${next.passed}/${next.tasks} passed: ` +
    `${comparison.passToFail.length} pass → fail, ${comparison.failToPass.length} fail → pass, ` +
    `${comparison.added.length} new, ${comparison.missing.length} missing`;
  return [headline, ...taskLists(comparison), "", comparisonTable(comparison)].join("\n");
}

/** The flipped, new and missing tasks, each list under its title (empty lists left out). */
function taskLists(comparison: ReportComparison): string[] {
  const byName = new Map(comparison.tasks.map((task) => [task.name, task]));
  const flip = (name: string) => {
    const task = byName.get(name);
    return task === undefined
      ? `- ${markdownText(name)}`
      : `- ${markdownText(name)}: ${markdownText(figuresOf(task.base).status)} → ${markdownText(figuresOf(task.next).status)}${failedChecks(task.next)}`;
  };
  const plain = (name: string) => `- ${markdownText(name)}`;
  const lists: [string, string[]][] = [
    ["Pass → fail", comparison.passToFail.map(flip)],
    ["Fail → pass", comparison.failToPass.map(flip)],
    ["New tasks", comparison.added.map(plain)],
    ["Missing tasks", comparison.missing.map(plain)],
  ];
  return lists.flatMap(([title, lines]) =>
    lines.length === 0 ? [] : ["", `${title} (${lines.length}):`, ...lines],
  );
}

function comparisonTable(comparison: ReportComparison): string {
  const { base, next } = comparison.totals;
  const rows = comparison.tasks.map((task) => {
    const before = figuresOf(task.base);
    const after = figuresOf(task.next);
    return [
      task.name,
      change(yesNo(task.base.passed), yesNo(task.next.passed)),
      change(before.status, after.status),
      numberChange(before.steps, after.steps),
      numberChange(before.totalTokens, after.totalTokens),
      costChange(before.costUsd, after.costUsd),
    ];
  });
  rows.push([
    "total",
    change(`${base.passed}/${base.tasks}`, `${next.passed}/${next.tasks}`),
    "",
    numberChange(base.steps, next.steps),
    numberChange(base.totalTokens, next.totalTokens),
    costChange(shownCostUsd(base), shownCostUsd(next)),
  ]);
  return formatMarkdownTable(COLUMNS, rows);
}

function failedChecks(task: ReportTask): string {
  const names = figuresOf(task).failedChecks.map(markdownText);
  return names.length === 0 ? "" : ` (failed checks: ${names.join(", ")})`;
}

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

/** `a → b`, or just `a` when nothing changed. */
function change(before: string, after: string): string {
  return before === after ? before : `${before} → ${after}`;
}

function numberChange(before: number, after: number): string {
  const delta = after - before;
  if (delta === 0) return formatCount(after);
  const sign = delta > 0 ? "+" : "-";
  return `${formatCount(before)} → ${formatCount(after)} (${sign}${formatCount(Math.abs(delta))})`;
}

function costChange(before: number | null, after: number | null): string {
  const delta = before === null || after === null ? 0 : roundUsd(after - before);
  if (delta === 0) return change(formatCost(before), formatCost(after));
  const sign = delta > 0 ? "+" : "-";
  return `${formatCost(before)} → ${formatCost(after)} (${sign}${formatCost(Math.abs(delta))})`;
}
