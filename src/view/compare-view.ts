import { compareNames, type Report, type ReportTask } from "../report/aggregate.js";
import { compareReports, figuresOf } from "../report/compare.js";
import type { CompareRow, CompareSide, ViewCompare } from "./view-data.js";

/**
 * Two batches' tasks side by side, as `agent-run report --compare` compares them: each shared
 * task's statuses, its flip and its deltas, then the tasks found in one batch only.
 */
export function buildCompareView(base: Report, next: Report): ViewCompare {
  const comparison = compareReports(base, next);
  const passToFail = new Set(comparison.passToFail);
  const failToPass = new Set(comparison.failToPass);
  const rows: CompareRow[] = comparison.tasks.map((task) => ({
    name: task.name,
    base: side(task.base),
    next: side(task.next),
    flip: passToFail.has(task.name)
      ? "pass_to_fail"
      : failToPass.has(task.name)
        ? "fail_to_pass"
        : null,
    stepsDelta: task.stepsDelta,
    tokensDelta: task.tokensDelta,
    costDeltaUsd: task.costDeltaUsd,
  }));
  const only = (report: Report, names: readonly string[], isBase: boolean): CompareRow[] =>
    report.tasks
      .filter((task) => names.includes(task.name))
      .map((task) => ({
        name: task.name,
        base: isBase ? side(task) : null,
        next: isBase ? null : side(task),
        flip: null,
        stepsDelta: null,
        tokensDelta: null,
        costDeltaUsd: null,
      }));
  const all = [
    ...rows,
    ...only(base, comparison.missing, true),
    ...only(next, comparison.added, false),
  ];
  return { rows: all.sort((a, b) => compareNames(a.name, b.name)) };
}

function side(task: ReportTask): CompareSide {
  const figures = figuresOf(task);
  return {
    status: figures.status,
    passed: task.passed,
    steps: figures.steps,
    tokens: figures.totalTokens,
    costUsd: figures.costUsd,
  };
}
