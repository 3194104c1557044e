import { join } from "node:path";
import { type Report, roundUsd } from "./aggregate.js";

// The step outputs agent-run writes to `$GITHUB_OUTPUT` under GitHub Actions.

/**
 * The step outputs, from the batch's report: tasks passed (every trial) and failed, trials, the
 * mean pass@1, flaky tasks, and the batch's spend (retried attempts included).
 */
export function stepOutputs(report: Report, outDir: string): Record<string, string | number> {
  const { totals } = report;
  return {
    passed: totals.passed,
    failed: totals.failed,
    total: totals.tasks,
    trials: totals.trials,
    passed_trials: totals.passedTrials,
    pass_at_1: totals.estimates[0]?.passAtK ?? 0,
    flaky_tasks: totals.flakyTasks,
    cost_usd: roundUsd(totals.costUsd + totals.retries.costUsd),
    // As report.json's totals: `cost_usd` sums the known costs, these runs had none.
    unpriced_tasks: totals.unpricedTrials,
    report: join(outDir, "report.json"),
    out: outDir,
  };
}

/** `$GITHUB_OUTPUT` lines (`name=value`). */
export function outputLines(outputs: Readonly<Record<string, string | number>>): string {
  return Object.entries(outputs)
    .map(([name, value]) => `${name}=${String(value).replace(/[\r\n]+/g, " ")}`)
    .join("\n")
    .concat("\n");
}
