import { buildReport, compareNames, shownCostUsd } from "../report/aggregate.js";
import type { RunSummary } from "../report/run-summary.js";
import { buildRunView, type RunViewContext } from "./run-view.js";
import type { ViewBatch, ViewRun, ViewTask } from "./view-data.js";

/**
 * A batch as the page shows it: its runs grouped by task (a task run several times, as trials,
 * holds each run, in trial order), and the totals `agent-run report` gives for the same runs.
 */
export async function buildBatchView(
  label: string,
  runs: readonly RunSummary[],
  context: RunViewContext & { warnings?: readonly string[] },
): Promise<ViewBatch> {
  const byName = new Map<string, ViewRun[]>();
  for (const run of runs) {
    const view = await buildRunView(run, context);
    byName.set(run.name, [...(byName.get(run.name) ?? []), view]);
  }
  const tasks = [...byName.entries()]
    .sort(([a], [b]) => compareNames(a, b))
    .map(([name, taskRuns]) => viewTask(name, taskRuns));
  const { totals } = buildReport(runs);
  return {
    label,
    tasks,
    totals: {
      tasks: totals.tasks,
      passed: totals.passed,
      failed: totals.failed,
      steps: totals.steps,
      tokens: totals.totalTokens,
      costUsd: shownCostUsd(totals),
      durationMs: totals.durationMs,
      checks: totals.checkCount,
      failedChecks: totals.failedCheckCount,
    },
    warnings: [...(context.warnings ?? [])],
  };
}

function viewTask(name: string, runs: ViewRun[]): ViewTask {
  const sorted = runs.sort((a, b) => (a.trial ?? 0) - (b.trial ?? 0));
  const passedRuns = sorted.filter((run) => run.passed).length;
  return {
    name,
    runs: sorted,
    passedRuns,
    isFlaky: passedRuns > 0 && passedRuns < sorted.length,
  };
}
