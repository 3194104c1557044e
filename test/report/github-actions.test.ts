import { describe, expect, test } from "vitest";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { annotations, taskFileAnnotations } from "../../src/report/github-actions.js";
import type { TaskSummary } from "../../src/report/summary.js";

describe("taskFileAnnotations", () => {
  test("past 10 problems, 9 are annotated and one points at the step's log for the rest", () => {
    const problems = Array.from({ length: 11 }, (_, i) => ({
      file: "tasks/bad.yaml",
      line: i + 1,
      column: 1,
      path: "",
      message: `problem ${i + 1}`,
    }));

    const lines = taskFileAnnotations(problems);

    expect(lines).toHaveLength(10);
    expect(lines[8]).toBe(
      "::error file=tasks/bad.yaml,line=9,col=1,title=agent-run%3A invalid task file::problem 9",
    );
    expect(lines[9]).toBe(
      "::error title=agent-run%3A 2 more errors::2 more errors are not shown as annotations (GitHub shows 10); see the step's log",
    );
  });
});

describe("annotations", () => {
  test("an SDK warning is one ::warning, counted with the tasks' warnings under the cap", () => {
    const stopped = Array.from(
      { length: 10 },
      (_, i): TaskSummary => ({
        name: `t${i}`,
        taskFile: `tasks/t${i}.yaml`,
        status: "max_steps",
        error: "max_steps reached",
        model: "m",
        steps: 2,
        usage: ZERO_USAGE,
        costUsd: 0,
        durationMs: 1,
        finalText: "",
        changedFiles: [],
        gitChanges: [],
        workspace: "ws",
        runDir: `out/t${i}`,
        patchFile: null,
        checks: [],
        passed: false,
      }),
    );
    const warning = { source: "the Anthropic SDK", message: "The model 'x' is deprecated" };

    const alone = annotations([], [warning]);
    const capped = annotations(stopped, [warning]);

    expect(alone).toEqual([
      "::warning title=agent-run%3A warning from the Anthropic SDK::The model 'x' is deprecated",
    ]);
    expect(capped).toHaveLength(10);
    expect(capped.at(-1)).toBe(
      "::warning title=agent-run%3A 2 more warnings::2 more warnings are not shown as annotations (GitHub shows 10); see the job summary",
    );
  });
});
