import { buildReport, type Report, shownCostUsd } from "../report/aggregate.js";
import type { RunSummary } from "../report/run-summary.js";
import { buildRunView, type RunViewContext } from "./run-view.js";
import type { ViewBatch, ViewRun, ViewTask } from "./view-data.js";

/**
 * A batch as the page shows it: its runs grouped by task (a task run several times, as trials,
 * holds each run, in trial order), and the totals `agent-run report` gives for the same runs.
 * Returns that report too: a comparison reads it.
 */
export async function buildBatchView(
  label: string,
  runs: readonly RunSummary[],
  context: RunViewContext & { warnings: readonly string[] },
): Promise<{ batch: ViewBatch; report: Report }> {
  const byName = new Map<string, ViewRun[]>();
  for (const run of runs) {
    const view = await buildRunView(run, context);
    byName.set(run.name, [...(byName.get(run.name) ?? []), view]);
  }
  // The report's tasks, sorted by name, count each task's passed trials and flag the flaky ones.
  const report = buildReport(runs);
  const tasks = report.tasks.map(
    (task): ViewTask => ({
      name: task.name,
      runs: (byName.get(task.name) ?? []).sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0)),
      passedRuns: task.passedTrials,
      isFlaky: task.isFlaky,
    }),
  );
  const { totals } = report;
  const batch: ViewBatch = {
    label,
    tasks,
    totals: {
      tasks: totals.tasks,
      passed: totals.passed,
      failed: totals.failed,
      trials: totals.trials,
      passedTrials: totals.passedTrials,
      flakyTasks: totals.flakyTasks,
      passAt1: totals.estimates[0]?.passAtK ?? 0,
      steps: totals.steps,
      tokens: totals.totalTokens,
      costUsd: shownCostUsd(totals),
      durationMs: totals.durationMs,
      checks: totals.checkCount,
      failedChecks: totals.failedCheckCount,
    },
    warnings: [...context.warnings],
  };
  return { batch, report };
}
