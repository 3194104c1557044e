import { describe, expect, test } from "vitest";
import type { JsonObject } from "../../src/agent/events.js";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { buildReport } from "../../src/report/aggregate.js";
import { runSummaryOf } from "../../src/report/batch-report.js";
import {
  MAX_OUTPUT_VALUE_BYTES,
  outputLines,
  stepOutputs,
} from "../../src/report/github-outputs.js";
import type { TaskSummary } from "../../src/report/summary.js";
import { runnerOutputs } from "../helpers/github-runner.js";

function summary(name: string, structuredOutput?: JsonObject): TaskSummary {
  return {
    name,
    taskFile: `tasks/${name}.yaml`,
    status: "completed",
    error: undefined,
    model: "m",
    steps: 1,
    usage: ZERO_USAGE,
    costUsd: 0.5,
    durationMs: 1,
    finalText: "",
    changedFiles: [],
    gitChanges: [],
    workspace: "/w",
    runDir: `/out/${name}`,
    patchFile: null,
    checks: [],
    passed: true,
    ...(structuredOutput === undefined ? {} : { structuredOutput }),
  };
}

/** The outputs of a batch of these runs, written to `/out`. */
function outputsOf(summaries: readonly TaskSummary[]) {
  return stepOutputs(buildReport(summaries.map(runSummaryOf)), summaries, "/out");
}

describe("stepOutputs", () => {
  test("structured_output holds each task's object by name, and reads back as written", () => {
    const hostile = { text: "a\nb\r\nc <<EOF\nEOF\n=x ::error::y \u2028", n: 1 };
    const { outputs, warning } = outputsOf([
      summary("a", hostile),
      summary("b"),
      summary("c", { ok: true }),
    ]);

    const read = runnerOutputs(outputLines(outputs));

    expect(warning).toBeUndefined();
    expect(JSON.parse(read.get("structured_output") ?? "")).toEqual({
      a: hostile,
      c: { ok: true },
    });
    expect([...read.keys()]).toEqual([
      "passed",
      "failed",
      "total",
      "trials",
      "passed_trials",
      "pass_at_1",
      "flaky_tasks",
      "cost_usd",
      "unpriced_tasks",
      "report",
      "out",
      "structured_output",
    ]);
  });

  test("a trial's object is under its label, task/trial-<n>", () => {
    const trials = [1, 2].map((index) => ({
      ...summary("a", { index }),
      trial: { index, count: 2 },
    }));

    const read = runnerOutputs(outputLines(outputsOf(trials).outputs));

    expect(JSON.parse(read.get("structured_output") ?? "")).toEqual({
      "a/trial-1": { index: 1 },
      "a/trial-2": { index: 2 },
    });
    expect([read.get("total"), read.get("trials"), read.get("passed_trials")]).toEqual([
      "1",
      "2",
      "2",
    ]);
  });

  test("without a structured output there is no such output", () => {
    expect(outputsOf([summary("a")]).outputs).not.toHaveProperty("structured_output");
  });

  test("past GitHub's 1 MB per output it is left out, with a warning", () => {
    const big = { text: "x".repeat(MAX_OUTPUT_VALUE_BYTES) };

    const { outputs, warning } = outputsOf([summary("a", big)]);

    expect(outputs).not.toHaveProperty("structured_output");
    expect(warning).toBe(
      "the step output structured_output is left out: its 1,000,017 bytes are more than GitHub's 1,000,000 per output; each task's output.json holds its object",
    );
  });
});
