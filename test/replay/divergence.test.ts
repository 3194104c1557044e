import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { createDivergenceTracker } from "../../src/replay/divergence.js";

function toolResult(
  step: number,
  content: string,
  isInterrupted: boolean,
  toolName = "bash",
): AgentEvent {
  return {
    type: "tool_result",
    step,
    toolName,
    input: {},
    block: { type: "tool_result", tool_use_id: `t${step}`, content },
    durationMs: 1,
    exitCode: 0,
    isInterrupted,
  };
}

const PATHS = { recorded: "/rec", replayed: "/rep" };

describe("createDivergenceTracker", () => {
  test("a recorded call the cancellation cut short is run again, not compared", () => {
    const recorded = [
      [{ toolName: "bash", content: "one", isError: false, isInterrupted: false }],
      [{ toolName: "bash", content: "[cancelled]", isError: true, isInterrupted: true }],
    ];
    const tracker = createDivergenceTracker({ toolResults: recorded, subagents: new Map() }, 2);
    tracker.onEvent(toolResult(1, "one", false));
    tracker.onEvent(toolResult(2, "finished this time", false));

    expect(tracker.report(PATHS)).toEqual({
      comparedSteps: 1,
      divergentSteps: [],
      first: undefined,
    });
  });

  test("a replayed call cut short is not compared either; a finished one that differs still is", () => {
    const recorded = [
      [{ toolName: "bash", content: "one", isError: false, isInterrupted: false }],
      [{ toolName: "bash", content: "two", isError: false, isInterrupted: false }],
    ];
    const tracker = createDivergenceTracker({ toolResults: recorded, subagents: new Map() }, 2);
    tracker.onEvent(toolResult(1, "uno", false));
    tracker.onEvent(toolResult(2, "[cancelled]", true));

    const report = tracker.report(PATHS);
    expect(report.comparedSteps).toBe(1);
    expect(report.divergentSteps).toEqual([1]);
  });

  test("timings are masked in the output of bash and of the command tools named, not of other tools", () => {
    const recorded = ["bash", "run_tests", "read_file"].map((toolName) => [
      { toolName, content: "ok (12.5ms)", isError: false, isInterrupted: false },
    ]);
    const tracker = createDivergenceTracker({ toolResults: recorded, subagents: new Map() }, 3, [
      "run_tests",
    ]);
    tracker.onEvent(toolResult(1, "ok (3.1ms)", false, "bash"));
    tracker.onEvent(toolResult(2, "ok (3.1ms)", false, "run_tests"));
    tracker.onEvent(toolResult(3, "ok (3.1ms)", false, "read_file"));

    expect(tracker.report(PATHS)).toMatchObject({ comparedSteps: 3, divergentSteps: [3] });
  });
});
