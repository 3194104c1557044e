import type { RawStream } from "./replies.js";

// Reply streams a broken or hostile endpoint might send, byte for byte: each a `RawStream` for the
// mock servers' queues.

let counter = 0;

/** One server-sent event, named after its JSON's type as the API names them. */
export function sseEvent(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A message_start event as the API sends it. */
export function messageStart(): string {
  counter += 1;
  return sseEvent({
    type: "message_start",
    message: {
      id: `msg_hostile_${counter}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-5-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
}

/** The closing message_delta and message_stop. */
export function messageEnd(stopReason = "end_turn"): string {
  return (
    sseEvent({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    }) + sseEvent({ type: "message_stop" })
  );
}

function textBlockStart(index: number): string {
  return sseEvent({
    type: "content_block_start",
    index,
    content_block: { type: "text", text: "" },
  });
}

function textDelta(index: number, text: string): string {
  return sseEvent({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
}

function raw(body: string): RawStream {
  return { kind: "raw_stream", body };
}

/** A text block at `index` (200,000,000 once made the accumulator build a sparse array). */
export function blockAtIndex(index: number): RawStream {
  return raw(messageStart() + textBlockStart(index) + textDelta(index, "hi") + messageEnd());
}

/** `count` text blocks of one character each. */
export function manyBlocks(count: number): RawStream {
  const blocks = Array.from(
    { length: count },
    (_, index) =>
      textBlockStart(index) +
      textDelta(index, "x") +
      sseEvent({ type: "content_block_stop", index }),
  );
  return raw(messageStart() + blocks.join("") + messageEnd());
}

/** One text block streamed as `chunks` deltas of `chunkChars` characters each. */
export function giantText(chunks: number, chunkChars: number): RawStream {
  const delta = textDelta(0, "y".repeat(chunkChars));
  return raw(messageStart() + textBlockStart(0) + delta.repeat(chunks) + messageEnd());
}

/** A tool call whose input nests `depth` levels (`{"path": [[[…]]]}`), as input_json_delta. */
export function deepToolInput(name: string, depth: number, id = "toolu_deep"): RawStream {
  const json = `{"path":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
  const half = Math.ceil(json.length / 2);
  const start = sseEvent({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id, name, input: {} },
  });
  const deltas = [json.slice(0, half), json.slice(half)].map((partial) =>
    sseEvent({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: partial },
    }),
  );
  const stop = sseEvent({ type: "content_block_stop", index: 0 });
  return raw(messageStart() + start + deltas.join("") + stop + messageEnd("tool_use"));
}

/** A stream that starts well and then sends lines that are not JSON (`filler` characters of them). */
export function garbageLines(filler = 0): RawStream {
  const junk = `event: content_block_delta\ndata: {this is not json ${"#".repeat(filler)}\n\n`;
  return raw(messageStart() + textBlockStart(0) + textDelta(0, "so far") + junk + messageEnd());
}

/** A delta for block 3 when no block has started. */
export function deltaForMissingBlock(): RawStream {
  return raw(messageStart() + textDelta(3, "orphan") + messageEnd());
}
