import { compareNames, type Report, type ReportTask } from "../report/aggregate.js";
import { compareReports, perTrialOf } from "../report/compare.js";
import { differenceTitle } from "../report/compare-markdown.js";
import { statusCounts } from "../report/markdown-cells.js";
import type { CompareRow, CompareSide, ViewCompare } from "./view-data.js";

/**
 * Two batches' tasks side by side, as `agent-run report --compare` compares them: each shared
 * task's verdict, pass counts and per-trial deltas, the tasks found in one batch only, the mean
 * pass rate's change with its interval, and how the batches' fingerprints differ.
 */
export function buildCompareView(base: Report, next: Report): ViewCompare {
  const comparison = compareReports(base, next);
  const rows: CompareRow[] = comparison.tasks.map((task) => {
    const before = side(task.base);
    const after = side(task.next);
    return {
      name: task.name,
      base: before,
      next: after,
      verdict: task.verdict,
      pDrop: task.pDrop,
      stepsDelta: after.steps - before.steps,
      tokensDelta: after.tokens - before.tokens,
      costDeltaUsd:
        before.costUsd === null || after.costUsd === null ? null : after.costUsd - before.costUsd,
    };
  });
  const only = (report: Report, names: readonly string[], isBase: boolean): CompareRow[] =>
    report.tasks
      .filter((task) => names.includes(task.name))
      .map((task) => ({
        name: task.name,
        base: isBase ? side(task) : null,
        next: isBase ? null : side(task),
        verdict: isBase ? ("missing" as const) : ("new" as const),
        pDrop: null,
        stepsDelta: null,
        tokensDelta: null,
        costDeltaUsd: null,
      }));
  const all = [
    ...rows,
    ...only(base, comparison.missing, true),
    ...only(next, comparison.added, false),
  ];
  const { meanRate } = comparison;
  return {
    rows: all.sort((a, b) => compareNames(a.name, b.name)),
    meanRate: {
      base: meanRate.base,
      next: meanRate.next,
      delta: meanRate.delta,
      low: meanRate.interval.low,
      high: meanRate.interval.high,
      level: meanRate.interval.level,
    },
    differences: comparison.differences.map((difference) => ({
      title: differenceTitle(difference),
      change: difference.change,
      tasks: difference.tasks,
      refused: difference.isRefused,
    })),
    regression: comparison.regression,
  };
}

/** A task's side, with its figures per trial. */
function side(task: ReportTask): CompareSide {
  const figures = perTrialOf(task);
  const [only] = task.runs;
  return {
    status: task.runs.length === 1 && only !== undefined ? only.status : statusCounts(task),
    passed: task.passed,
    passedTrials: task.passedTrials,
    trials: task.trials,
    steps: figures.steps,
    tokens: figures.totalTokens,
    costUsd: figures.costUsd,
  };
}
