import { join } from "node:path";
import { formatCount, roundMillionths } from "../format.js";
import type { Report } from "./aggregate.js";
import { runLabel } from "./run-folders.js";
import type { TaskSummary } from "./summary.js";

// The step outputs agent-run appends to `$GITHUB_OUTPUT`: the batch's figures, and the tasks'
// structured outputs.

/** GitHub's limit on one output's value; a larger one fails the step's outputs. */
export const MAX_OUTPUT_VALUE_BYTES = 1_000_000;

/** The step outputs, and a warning for an output left out. */
export type StepOutputs = {
  outputs: Record<string, string | number>;
  /** Why an output was left out (for a `::warning::`), if one was. */
  warning: string | undefined;
};

/**
 * The step outputs, from the batch's report: tasks passed (every trial) and failed, trials, the
 * mean pass@1, flaky tasks, the batch's spend (retried attempts included), and `view` (the viewer
 * `run --view` wrote). Then `structured_output` when a run has one: every such run's object by
 * its label (the task's name; `task/trial-<n>` for a trial), as compact JSON. Compact JSON is one
 * line (JSON escapes line breaks in strings), so it needs no heredoc; past
 * `MAX_OUTPUT_VALUE_BYTES` it is left out with a warning.
 */
export function stepOutputs(
  report: Report,
  summaries: readonly TaskSummary[],
  outDir: string,
  viewFile?: string,
): StepOutputs {
  const { totals } = report;
  const outputs: Record<string, string | number> = {
    passed: totals.passed,
    failed: totals.failed,
    total: totals.tasks,
    trials: totals.trials,
    passed_trials: totals.passedTrials,
    pass_at_1: totals.estimates[0]?.passAtK ?? 0,
    flaky_tasks: totals.flakyTasks,
    cost_usd: roundMillionths(totals.costUsd + totals.retries.costUsd),
    // As report.json's totals: `cost_usd` sums the known costs, these runs had none.
    unpriced_tasks: totals.unpricedTrials,
    report: join(outDir, "report.json"),
    out: outDir,
    ...(viewFile === undefined ? {} : { view: viewFile }),
  };
  const structured = summaries.flatMap((summary) =>
    summary.structuredOutput === undefined ? [] : [[runLabel(summary), summary.structuredOutput]],
  );
  if (structured.length === 0) return { outputs, warning: undefined };
  const json = JSON.stringify(Object.fromEntries(structured));
  const bytes = Buffer.byteLength(json);
  if (bytes <= MAX_OUTPUT_VALUE_BYTES) {
    return { outputs: { ...outputs, structured_output: json }, warning: undefined };
  }
  const warning = `the step output structured_output is left out: its ${formatCount(bytes)} bytes are more than GitHub's ${formatCount(MAX_OUTPUT_VALUE_BYTES)} per output; each task's output.json holds its object`;
  return { outputs, warning };
}

/** `$GITHUB_OUTPUT` lines (`name=value`); a value never spans lines. */
export function outputLines(outputs: Readonly<Record<string, string | number>>): string {
  return Object.entries(outputs)
    .map(([name, value]) => `${name}=${String(value).replace(/[\r\n]+/g, " ")}`)
    .join("\n")
    .concat("\n");
}
