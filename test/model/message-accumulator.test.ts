import { describe, expect, it } from "vitest";
import { MalformedReplyError } from "../../src/model/malformed-reply.js";
import { createMessageAccumulator, type StreamEvent } from "../../src/model/message-accumulator.js";
import type { ReplyLimits } from "../../src/model/reply-limits.js";

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
  it("drops a `wire` field a Messages-API server sends: that name holds the OpenAI client's record", () => {
    const message = accumulate([
      { ...START, message: { ...START.message, wire: { usage: { cost: 0 } } } },
      { type: "message_stop" },
    ]);

    expect(message).not.toHaveProperty("wire");
    expect(message).toMatchObject({ id: "msg_1", usage: { input_tokens: 12 } });
  });

  it("drops `wire` and `provider` wherever a Messages-API server sends them: the OpenAI client's fields", () => {
    const message = accumulate([
      { ...START, message: { ...START.message, provider: "openrouter" } },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", wire: { usage: { cost: 0 } }, provider: "openrouter" },
        usage: { output_tokens: 9 },
      },
    ]);

    expect(message).not.toHaveProperty("wire");
    expect(message).not.toHaveProperty("provider");
    expect(message).toMatchObject({ stop_reason: "end_turn", usage: { output_tokens: 9 } });
  });

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

describe("createMessageAccumulator on a malformed or oversize stream", () => {
  const textStart = (index: number): StreamEvent => ({
    type: "content_block_start",
    index,
    content_block: { type: "text", text: "" },
  });
  const textDelta = (index: number, text: string): StreamEvent => ({
    type: "content_block_delta",
    index,
    delta: { type: "text_delta", text },
  });
  const STOP: StreamEvent[] = [
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
    { type: "message_stop" },
  ];
  /** Blocks of 100 characters (the start event's block JSON counts), a message of 250 beyond START. */
  const SMALL: ReplyLimits = {
    maxBlocks: 3,
    maxBlockChars: 100,
    maxMessageChars: JSON.stringify((START as { message: object }).message).length + 250,
    maxEventDepth: 8,
    maxResponseBytes: 1_000,
    maxLineBytes: 1_000,
  };

  /** The error `events` end with, pushed one by one (finish included) into an accumulator. */
  function failure(events: unknown[], limits?: ReplyLimits): unknown {
    const accumulator = createMessageAccumulator(limits);
    try {
      for (const event of events) accumulator.push(event);
      accumulator.finish();
    } catch (error) {
      return error;
    }
    throw new Error("the stream was accepted");
  }

  it("refuses a block at index 200,000,000 at once, with the default limits", () => {
    const error = failure([START, textStart(200_000_000)]);
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect(String(error)).toMatch(
      /content_block_start for block 200000000, but the next block is 0/,
    );
  });

  it.each([
    ["a gap", [textStart(0), textStart(2)], /block 2, but the next block is 1/],
    ["a restart", [textStart(0), textStart(0)], /block 0, but the next block is 1/],
    ["a negative index", [textStart(-1)], /block -1, but the next block is 0/],
    ["a string index", [{ ...textStart(0), index: "0" }], /block "0", but the next block is 0/],
    [
      "a delta for a block never started",
      [textStart(0), textDelta(1, "x")],
      /content_block_delta for block 1, which never started \(1 did\)/,
    ],
    [
      "a stop for a block never started",
      [{ type: "content_block_stop", index: 5 }],
      /content_block_stop for block 5, which never started/,
    ],
    [
      "a block with no type",
      [{ type: "content_block_start", index: 0, content_block: 7 }],
      /content block 0 has no type/,
    ],
    [
      "a tool call without a name",
      [{ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t" } }],
      /tool_use block 0 has no id or name/,
    ],
    [
      "a text delta without text",
      [
        textStart(0),
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: 5 } },
      ],
      /text_delta for block 0 has no text string/,
    ],
    [
      "a delta without a type",
      [textStart(0), { type: "content_block_delta", index: 0, delta: null }],
      /delta for block 0 has no type/,
    ],
    ["a second message_start", [START], /a second message_start/],
    ["a message_delta without delta", [{ type: "message_delta" }], /message_delta holds no delta/],
    [
      "usage that is not an object",
      [{ type: "message_delta", delta: {}, usage: "lots" }],
      /usage is not an object/,
    ],
  ])("refuses %s", (_case, events, message) => {
    const error = failure([START, ...events, ...STOP]);
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect(String(error)).toMatch(message);
  });

  it.each([null, 42, "text", [], {}, { type: 7 }])("refuses the event %j", (event) => {
    expect(failure([START, event])).toEqual(
      new MalformedReplyError('an event is not a JSON object with a "type"'),
    );
  });

  it("refuses content before message_start", () => {
    expect(String(failure([textStart(0)]))).toMatch(
      /a content_block_start event came before message_start/,
    );
    expect(String(failure([{ type: "message_start", message: [] }]))).toMatch(/holds no message/);
  });

  it("skips event and delta types it does not know, as the API's versioning policy asks", () => {
    const message = accumulate([
      { type: "ping" },
      START,
      { type: "some_future_event", index: 99, payload: { a: [[[[[[[[[[[[1]]]]]]]]]]]] } },
      textStart(0),
      { type: "content_block_delta", index: 0, delta: { type: "some_future_delta", x: 1 } },
      textDelta(0, "ok"),
      ...STOP,
    ] as StreamEvent[]);
    expect(message.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("refuses more blocks than maxBlocks", () => {
    const events = [START, textStart(0), textStart(1), textStart(2), textStart(3)];
    expect(String(failure(events, SMALL))).toMatch(/more than 3 content blocks/);
    expect(() =>
      accumulate([START, textStart(0), textStart(1), textStart(2), ...STOP]),
    ).not.toThrow();
  });

  it("refuses 10,001 blocks with the default limits", () => {
    const events = [START, ...Array.from({ length: 10_001 }, (_, index) => textStart(index))];
    expect(String(failure(events))).toMatch(/more than 10000 content blocks/);
  });

  it("bounds the text, thinking and tool input JSON of one block, and of the whole message", () => {
    const big = "x".repeat(60);
    expect(
      String(failure([START, textStart(0), textDelta(0, big), textDelta(0, big)], SMALL)),
    ).toMatch(/content block 0 is longer than 100 characters/);
    const tool: StreamEvent = {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "t", name: "bash", input: {} },
    };
    const json = (partial: string): StreamEvent => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: partial },
    });
    expect(String(failure([START, tool, json(`{"a":"${big}`), json(`${big}"}`)], SMALL))).toMatch(
      /content block 0 is longer than 100 characters/,
    );
    const thinking: StreamEvent[] = [
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: big } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: big } },
    ];
    expect(String(failure([START, ...thinking], SMALL))).toMatch(/block 0 is longer than 100/);
    // Three blocks of 25 + 70 characters each: every block within its bound, the message not.
    const blocks = [0, 1, 2].flatMap((index) => [
      textStart(index),
      textDelta(index, "y".repeat(70)),
    ]);
    expect(String(failure([START, ...blocks], SMALL))).toMatch(
      /the reply is longer than \d+ characters/,
    );
  });

  it("refuses a text delta stream past 8,000,000 characters with the default limits", () => {
    const accumulator = createMessageAccumulator();
    accumulator.push(START);
    accumulator.push(textStart(0));
    const chunk = "z".repeat(1_000_000);
    let pushed = 0;
    const error = (() => {
      try {
        for (; pushed < 10; pushed += 1) accumulator.push(textDelta(0, chunk));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(String(error)).toMatch(/content block 0 is longer than 8000000 characters/);
    // The block's start counts too: the 8th million is past the bound.
    expect(pushed).toBe(7);
  });

  it("refuses an event nested deeper than maxEventDepth", () => {
    const deep = JSON.parse(`${"[".repeat(3_000)}${"]".repeat(3_000)}`);
    const event = { type: "content_block_start", index: 0, content_block: { type: "text", deep } };
    expect(String(failure([START, event]))).toMatch(
      /a content_block_start event nests deeper than 100 levels/,
    );
  });

  it("parses tool input nested 3,000 deep (the loop, not the stream, refuses it)", () => {
    const deep = `{"a":${"[".repeat(3_000)}${"]".repeat(3_000)}}`;
    const message = accumulate([
      START,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "bash", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: deep },
      },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } },
    ]);
    expect(message.content).toEqual([
      expect.objectContaining({ type: "tool_use", input: { a: expect.any(Array) } }),
    ]);
  });

  it("says why tool input does not parse, briefly, as a malformed reply", () => {
    const error = failure([
      START,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "bash", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: `{"command": ${"q".repeat(100_000)}` },
      },
      ...STOP,
    ]);
    expect(error).toBeInstanceOf(MalformedReplyError);
    expect(String(error).length).toBeLessThan(400);
  });

  it("keeps a __proto__ key of message_delta a plain field", () => {
    const message = accumulate([
      START,
      JSON.parse('{"type":"message_delta","delta":{"stop_reason":"end_turn","__proto__":{"x":1}}}'),
    ]);
    expect(Object.getPrototypeOf(message)).toBe(Object.prototype);
    expect((message as { x?: unknown }).x).toBeUndefined();
  });
});
