import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { toModelReply } from "../../src/model/model-client.js";
import { createToolCallLedger } from "../../src/transcript/tool-call-ledger.js";
import { reply } from "../helpers/replies.js";

const replyEvent = (step: number, ids: string[], parent?: string): AgentEvent => {
  const builder = reply();
  for (const id of ids) builder.toolUse("read_file", { path: "a" }, id);
  return {
    type: "model_reply",
    step,
    reply: toModelReply(builder.build()),
    durationMs: 1,
    ...(parent === undefined ? {} : { subagent: { parentToolUseId: parent, rootStep: 1 } }),
  };
};

const resultEvent = (id: string, parent?: string): AgentEvent => ({
  type: "tool_result",
  step: 1,
  toolName: "read_file",
  input: {},
  block: { type: "tool_result", tool_use_id: id, content: "x" },
  durationMs: 1,
  exitCode: undefined,
  ...(parent === undefined ? {} : { subagent: { parentToolUseId: parent, rootStep: 1 } }),
});

describe("createToolCallLedger", () => {
  test("a subagent's call with the id of its parent's open call does not close the parent's", () => {
    const ledger = createToolCallLedger();
    ledger.onEvent(replyEvent(1, ["t1", "call_0"]));
    ledger.onEvent(replyEvent(1, ["call_0"], "t1"));
    ledger.onEvent(resultEvent("call_0", "t1"));

    const closed = ledger.closeOpen("the run ended");

    expect(closed.map((line) => [line.parent_tool_use_id, line.step])).toEqual([
      [null, 1],
      [null, 1],
    ]);
    expect(closed.map((line) => line.message.content[0]?.tool_use_id)).toEqual(["t1", "call_0"]);
  });

  test("closeSubagent closes only that subagent's open calls", () => {
    const ledger = createToolCallLedger();
    ledger.onEvent(replyEvent(1, ["t1", "p2"]));
    ledger.onEvent(replyEvent(2, ["c1", "c2"], "t1"));

    const child = ledger.closeSubagent("t1", "the subagent stopped");

    expect(child.map((line) => [line.parent_tool_use_id, line.step])).toEqual([
      ["t1", 2],
      ["t1", 2],
    ]);
    expect(ledger.closeOpen("end")).toHaveLength(2);
  });
});
