import { describe, expect, it } from "vitest";
import { createMessageAccumulator, type StreamEvent } from "../../src/model/message-accumulator.js";

const START: StreamEvent = {
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-5-5",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 100 },
  },
};

function accumulate(events: StreamEvent[]): Record<string, unknown> {
  const accumulator = createMessageAccumulator();
  for (const event of events) accumulator.push(event);
  return accumulator.finish();
}

describe("createMessageAccumulator", () => {
  it("rebuilds text, thinking and tool calls, and merges the final usage", () => {
    const message = accumulate([
      START,
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: "Look " },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: "first." },
      },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hello, " } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "world." } },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "input_json_delta", partial_json: '{"comm' },
      },
      {
        type: "content_block_delta",
        index: 2,
        delta: { type: "input_json_delta", partial_json: 'and": "ls -la"}' },
      },
      { type: "content_block_stop", index: 2 },
      {
        type: "content_block_start",
        index: 3,
        content_block: { type: "tool_use", id: "toolu_2", name: "list_files", input: {} },
      },
      { type: "content_block_stop", index: 3 },
      { type: "ping" },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 40, input_tokens: null },
      },
      { type: "message_stop" },
    ]);
    expect(message).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-5-5",
      content: [
        { type: "thinking", thinking: "Look first.", signature: "s" },
        { type: "text", text: "Hello, world." },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls -la" } },
        { type: "tool_use", id: "toolu_2", name: "list_files", input: {} },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 40, cache_read_input_tokens: 100 },
    });
  });

  it("keeps {} as the input of a tool call cut off mid-JSON at the output limit", () => {
    const message = accumulate([
      START,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "write_file", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"path": "a.txt", "content": "ab' },
      },
      { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ]);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.content).toEqual([
      { type: "tool_use", id: "toolu_1", name: "write_file", input: {} },
    ]);
  });

  it("accepts a stream that has its stop reason but no message_stop (some proxies drop it)", () => {
    const message = accumulate([
      START,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "Done." } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
    ]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content).toEqual([{ type: "text", text: "Done." }]);
  });

  it("refuses tool input that is not JSON when the reply was not cut off", () => {
    expect(() =>
      accumulate([
        START,
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} },
        },
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: '{"command": ' },
        },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
        { type: "message_stop" },
      ]),
    ).toThrow(/tool call's input in the reply stream is not valid JSON/);
  });

  it("refuses to finish a stream that broke off before its stop reason", () => {
    const accumulator = createMessageAccumulator();
    accumulator.push(START);
    accumulator.push({ type: "content_block_start", index: 0, content_block: { type: "text" } });
    expect(() => accumulator.finish()).toThrow(/ended before the message was complete/);
    expect(() => createMessageAccumulator().finish()).toThrow(/ended before/);
  });
});
