import { describe, expect, it } from "vitest";
import { runSummaryOf } from "../../src/report/batch-report.js";
import { parseRunSummary } from "../../src/report/run-summary.js";
import { summaryJson, type TaskSummary } from "../../src/report/summary.js";

function taskSummary(overrides: Partial<TaskSummary> = {}): TaskSummary {
  return {
    name: "fix-bug",
    taskFile: "tasks/fix-bug.yaml",
    status: "completed",
    error: undefined,
    model: "claude-sonnet-5-5",
    steps: 4,
    usage: {
      inputTokens: 1200,
      outputTokens: 340,
      cacheCreationInputTokens: 800,
      cacheReadInputTokens: 5600,
    },
    costUsd: 0.0123,
    durationMs: 4321.5,
    finalText: "Fixed the off-by-one.",
    changedFiles: [
      { path: "src/a.js", status: "modified", additions: 2, deletions: 1, binary: false },
      { path: "src/b.js", status: "added", additions: 5, deletions: 0, binary: false },
    ],
    workspace: "/runs/fix-bug/workspace",
    runDir: "/runs/fix-bug",
    patchFile: "changes.patch",
    checks: [],
    passed: true,
    ...overrides,
  };
}

/** What the report gets when it reads the summary.json that `summaryJson` writes. */
function readBack(summary: TaskSummary) {
  return parseRunSummary(
    JSON.stringify(summaryJson(summary)),
    `${summary.runDir}/summary.json`,
    summary.runDir,
  );
}

describe("runSummaryOf", () => {
  it.each([
    ["a completed run without checks", taskSummary()],
    [
      "a run whose check failed",
      taskSummary({
        passed: false,
        checks: [
          {
            name: "tests pass",
            kind: "run",
            passed: false,
            message: "exited with code 1",
            output: "1 failing test",
            line: 12,
            durationMs: 40.5,
          },
          {
            name: "exports",
            kind: "file_contains",
            passed: true,
            message: 'src/a.js contains "export"',
            output: null,
            line: 15,
            durationMs: 0,
          },
        ],
      }),
    ],
    [
      "a failed run with no cost and no patch",
      taskSummary({
        status: "error",
        error: "the model API refused the key",
        costUsd: null,
        patchFile: null,
        changedFiles: [],
        passed: false,
        origin: { kind: "replay", transcript: "/old/transcript.jsonl", sessionId: "s-1", steps: 3 },
      }),
    ],
  ])("gives what reading back its summary.json gives: %s", (_, summary) => {
    expect(runSummaryOf(summary)).toStrictEqual(readBack(summary));
  });
});
