/**
 * The server-sent events of a streamed Messages API reply, as far as the accumulator reads them.
 * Structural, so this module needs no SDK types; unknown event and delta types are ignored.
 */
export type StreamEvent =
  | { type: "message_start"; message: object }
  | { type: "content_block_start"; index: number; content_block: object }
  | { type: "content_block_delta"; index: number; delta: ContentDelta }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; delta: object; usage?: object | null }
  | { type: "message_stop" }
  | { type: string };

type ContentDelta =
  | { type: "text_delta"; text: string }
  | { type: "input_json_delta"; partial_json: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "citations_delta"; citation: unknown }
  | { type: string };

/** A content block while it streams: the API's fields, plus the tool input's JSON so far. */
type OpenBlock = Record<string, unknown> & { inputJson?: string };

/** Builds the final message from a reply's events; `finish` throws if the stream broke off. */
export type MessageAccumulator = {
  push(event: StreamEvent): void;
  /**
   * The message as the API would have sent it unstreamed. Throws when the stream broke off before
   * the stop reason (`message_delta`) came, or when a tool call's input is not valid JSON though
   * the reply was not cut off at the output limit.
   */
  finish(): Record<string, unknown>;
};

/**
 * Accumulates a streamed reply the way the non-streaming API returns it: texts concatenated, each
 * tool call's input parsed once from its complete JSON (a call cut off mid-input, at the output
 * token limit, keeps `{}`), and the usage of `message_delta` merged into `message_start`'s.
 * Cheaper than the SDK's MessageStream, which re-parses partial tool input on every delta.
 */
export function createMessageAccumulator(): MessageAccumulator {
  let message: Record<string, unknown> | undefined;
  const blocks: OpenBlock[] = [];
  let hasStopped = false;

  return {
    push(event) {
      if (isEvent(event, "message_start")) {
        message = { ...event.message };
      } else if (isEvent(event, "content_block_start")) {
        blocks[event.index] = { ...event.content_block };
      } else if (isEvent(event, "content_block_delta")) {
        const block = blocks[event.index];
        if (block !== undefined) applyDelta(block, event.delta);
      } else if (isEvent(event, "message_delta")) {
        if (message === undefined) return;
        Object.assign(message, event.delta);
        if (event.usage !== undefined && event.usage !== null) mergeUsage(message, event.usage);
      } else if (event.type === "message_stop") {
        hasStopped = true;
      }
    },
    finish() {
      // Some proxies close the stream after the stop reason, without message_stop.
      if (message === undefined || (!hasStopped && (message.stop_reason ?? null) === null)) {
        throw new Error("the reply stream ended before the message was complete");
      }
      const isCutOff = message.stop_reason === "max_tokens";
      return { ...message, content: Array.from(blocks, (block) => closeBlock(block, isCutOff)) };
    },
  };
}

function isEvent<T extends StreamEvent["type"]>(
  event: StreamEvent,
  type: T,
): event is Extract<StreamEvent, { type: T }> {
  return event.type === type;
}

function applyDelta(block: OpenBlock, delta: ContentDelta): void {
  if (isDelta(delta, "text_delta")) {
    block.text = `${typeof block.text === "string" ? block.text : ""}${delta.text}`;
  } else if (isDelta(delta, "input_json_delta")) {
    block.inputJson = `${block.inputJson ?? ""}${delta.partial_json}`;
  } else if (isDelta(delta, "thinking_delta")) {
    block.thinking = `${typeof block.thinking === "string" ? block.thinking : ""}${delta.thinking}`;
  } else if (isDelta(delta, "signature_delta")) {
    block.signature = delta.signature;
  } else if (isDelta(delta, "citations_delta")) {
    block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
  }
}

function isDelta<T extends ContentDelta["type"]>(
  delta: ContentDelta,
  type: T,
): delta is Extract<ContentDelta, { type: T }> {
  return delta.type === type;
}

/** The block as the API returns it: a tool call's input parsed from its streamed JSON. */
function closeBlock(block: OpenBlock | undefined, isCutOff: boolean): Record<string, unknown> {
  if (block === undefined) return {};
  const { inputJson, ...rest } = block;
  if (inputJson === undefined) return rest;
  return { ...rest, input: parseInput(inputJson, isCutOff) };
}

function parseInput(json: string, isCutOff: boolean): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch (error) {
    // Cut off mid-input (stop_reason max_tokens): the loop answers such a call without running it.
    if (isCutOff) return {};
    throw new Error(`a tool call's input in the reply stream is not valid JSON: ${error}`);
  }
}

/** `message_delta` carries the final output tokens (and sometimes updated input and cache counts). */
function mergeUsage(message: Record<string, unknown>, usage: object): void {
  const previous = typeof message.usage === "object" && message.usage !== null ? message.usage : {};
  const updates = Object.fromEntries(
    Object.entries(usage).filter(([, value]) => value !== null && value !== undefined),
  );
  message.usage = { ...previous, ...updates };
}
