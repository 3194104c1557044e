import { join } from "node:path";
import { formatCount } from "../format.js";
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
 * The batch's outputs (`view`: the viewer `run --view` wrote), and `structured_output` when a task has one: every such task's object by
 * task name, as compact JSON. Compact JSON is one line (JSON escapes line breaks in strings), so
 * it needs no heredoc; past `MAX_OUTPUT_VALUE_BYTES` it is left out with a warning.
 */
export function stepOutputs(
  summaries: readonly TaskSummary[],
  outDir: string,
  viewFile?: string,
): StepOutputs {
  const passed = summaries.filter((summary) => summary.passed).length;
  const cost = summaries.reduce((sum, summary) => sum + (summary.costUsd ?? 0), 0);
  const outputs: Record<string, string | number> = {
    passed,
    failed: summaries.length - passed,
    total: summaries.length,
    cost_usd: Math.round(cost * 1e6) / 1e6,
    // As report.json's totals: `cost_usd` sums the known costs, these tasks had none.
    unpriced_tasks: summaries.filter((summary) => summary.costUsd === null).length,
    report: join(outDir, "report.json"),
    out: outDir,
    // Where `run --view` wrote the viewer, when it did.
    ...(viewFile === undefined ? {} : { view: viewFile }),
  };
  const structured = summaries.flatMap((summary) =>
    summary.structuredOutput === undefined ? [] : [[summary.name, summary.structuredOutput]],
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
