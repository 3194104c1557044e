import { describe, expect, test } from "vitest";
import type { ModelRequest } from "../../../src/model/model-client.js";
import { toApiMessage } from "../../../src/model/openai/chat-reply.js";
import { MISSING_RESULT_TEXT, toChatParams } from "../../../src/model/openai/chat-request.js";
import { DEFAULT_OPENAI_COMPAT, type OpenAICompat } from "../../../src/model/openai/compat.js";
import { createToolNameMap, toNeutralId, toWireId } from "../../../src/model/openai/tool-names.js";

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

const BASE: ModelRequest = {
  model: "gpt-test",
  system: "sys",
  maxOutputTokens: 512,
  tools: [{ name: "bash", description: "Run", inputSchema: { properties: { command: {} } } }],
  messages: [{ role: "user", content: "go" }],
};

function params(request: Partial<ModelRequest>, compat: Partial<OpenAICompat> = {}) {
  const full = { ...BASE, ...request };
  return toChatParams(full, { ...DEFAULT_OPENAI_COMPAT, ...compat }, createToolNameMap(full.tools));
}

describe("toChatParams: history conversion", () => {
  test("each tool result is one tool message right after its assistant turn, in call order", () => {
    const { messages } = params({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Two calls." },
            { type: "tool_use", id: "a", name: "bash", input: { command: "ls" } },
            { type: "tool_use", id: "b", name: "bash", input: { command: "pwd" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "b", content: "/w" },
            { type: "tool_result", tool_use_id: "a", content: "x", is_error: true },
            { type: "text", text: "and also this" },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Two calls.",
        tool_calls: [
          { id: "a", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "b", type: "function", function: { name: "bash", arguments: '{"command":"pwd"}' } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "error: x" },
      { role: "tool", tool_call_id: "b", content: "/w" },
      { role: "user", content: "and also this" },
    ]);
  });

  test("a call without a result gets a synthetic error result; an orphan result is dropped", () => {
    const { messages } = params({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "bash", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "zzz", content: "stray" }] },
      ],
    });
    expect(messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "a", content: MISSING_RESULT_TEXT },
    ]);
  });

  test("wholly empty assistant messages are skipped; reasoning is not sent unless asked", () => {
    const { messages } = params({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "hmm" },
            { type: "text", text: "" },
          ],
        },
        { role: "user", content: "again" },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "hmm" },
            { type: "text", text: "ok" },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "go" },
      { role: "user", content: "again" },
      { role: "assistant", content: "ok" },
    ]);
  });

  test("reasoningSendBack puts reasoning_content on assistant turns with tool calls only", () => {
    const { messages } = params(
      {
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "list first" },
              { type: "tool_use", id: "a", name: "bash", input: {} },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "ok" }] },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "done" },
              { type: "text", text: "Done." },
            ],
          },
        ],
      },
      { reasoningSendBack: true },
    );
    expect(messages[2]).toMatchObject({ role: "assistant", reasoning_content: "list first" });
    expect(messages[4]).toEqual({ role: "assistant", content: "Done." });
  });
});

describe("toChatParams: compat settings", () => {
  test("a task's reasoning effort is sent as reasoning_effort; no reasoning, no field", () => {
    expect(params({ reasoning: { effort: "high" } })).toMatchObject({ reasoning_effort: "high" });
    expect(params({})).not.toHaveProperty("reasoning_effort");
  });

  test("the defaults: system role, max_tokens, include_usage, no tool_choice, no strict", () => {
    const body = params({});
    expect(body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "go" },
      ],
      max_tokens: 512,
      tools: [
        {
          type: "function",
          function: {
            name: "bash",
            description: "Run",
            parameters: { type: "object", properties: { command: {} } },
          },
        },
      ],
      stream_options: { include_usage: true },
    });
  });

  test("developer role, max_completion_tokens, tool_choice auto, strict tools, no stream usage", () => {
    const body = params(
      {},
      {
        developerRole: true,
        maxTokensField: "max_completion_tokens",
        sendToolChoice: true,
        strictTools: true,
        streamUsage: false,
      },
    );
    expect(body.messages[0]).toEqual({ role: "developer", content: "sys" });
    expect(body).toMatchObject({ max_completion_tokens: 512, tool_choice: "auto" });
    expect(body).not.toHaveProperty("max_tokens");
    expect(body).not.toHaveProperty("stream_options");
    expect(body.tools?.[0]?.function).toMatchObject({ strict: true });
  });
});

describe("tool ids and names, normalised for each side", () => {
  test("an id the Messages API rejects becomes a safe one, the same each time", () => {
    for (const id of ["call:1/ä", "x".repeat(100), "", "a b"]) {
      expect(toNeutralId(id)).toMatch(SAFE);
      expect(toNeutralId(id)).toBe(toNeutralId(id));
    }
    expect(toNeutralId("call_ok-1")).toBe("call_ok-1");
    expect(toNeutralId("a:b")).not.toBe(toNeutralId("a/b"));
  });

  test("ids sent to the server are at most 40 characters, tool call and result alike", () => {
    const longId = `toolu_${"x".repeat(60)}`;
    const { messages } = params({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: longId, name: "bash", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: longId, content: "ok" }] },
      ],
    });
    const wireId = toWireId(longId);
    expect(wireId.length).toBeLessThanOrEqual(40);
    expect(messages[2]).toMatchObject({ tool_calls: [{ id: wireId }] });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: wireId, content: "ok" });
  });

  test("a tool name the server rejects is sent fitted, and the model's call maps back", () => {
    const tools = [{ name: "mcp.files/read", description: "Read", inputSchema: {} }];
    const names = createToolNameMap(tools);
    const body = toChatParams({ ...BASE, tools }, DEFAULT_OPENAI_COMPAT, names);
    const wireName = body.tools?.[0]?.function.name ?? "";
    expect(wireName).toMatch(SAFE);
    expect(wireName).not.toBe("mcp.files/read");
    const message = toApiMessage(
      {
        id: "x",
        model: "m",
        text: "",
        reasoning: "",
        calls: [{ id: "c1", name: wireName, arguments: "{}" }],
        finishReason: "tool_calls",
        usage: undefined,
      },
      { model: "m", provider: "openai", names, requestChars: () => 0, usedIds: new Set() },
    );
    expect(message.content).toEqual([
      { type: "tool_use", id: "c1", name: "mcp.files/read", input: {} },
    ]);
    // A name the model made up is made safe, and the loop answers it as unknown.
    expect(names.toNeutral("no such!tool")).toMatch(SAFE);
  });
});
