import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { MalformedReplyError } from "./malformed-reply.js";
import { REPLY_LIMITS, type ReplyLimits } from "./reply-limits.js";

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

/** Builds the final message from a reply's events; `finish` throws if the stream broke off. */
export type MessageAccumulator = {
  /** Takes the next event as the SDK parsed it; throws `MalformedReplyError` for a bad one. */
  push(event: unknown): void;
  /**
   * The message as the API would have sent it unstreamed. Throws when the stream broke off before
   * the stop reason (`message_delta`) came, or when a tool call's input is not valid JSON though
   * the reply was not cut off at the output limit.
   */
  finish(): Record<string, unknown>;
};

/** A content block while it streams: the API's fields, plus the tool input's JSON so far. */
type OpenBlock = Record<string, unknown> & { inputJson?: string };

type State = {
  limits: ReplyLimits;
  message: Record<string, unknown> | undefined;
  blocks: OpenBlock[];
  /** Characters each block has grown to, and the whole message, as `ReplyLimits` counts them. */
  blockChars: number[];
  messageChars: number;
  hasStopped: boolean;
};

type Event = Record<string, unknown> & { type: string };

/** The event types of the protocol; others (`ping`, ones the API adds later) are ignored. */
const KNOWN_EVENTS = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
]);

/**
 * Accumulates a streamed reply the way the non-streaming API returns it: texts concatenated, each
 * tool call's input parsed once from its complete JSON (a call cut off mid-input, at the output
 * token limit, keeps `{}`), and the usage of `message_delta` merged into `message_start`'s.
 * Cheaper than the SDK's MessageStream, which re-parses partial tool input on every delta. Blocks
 * must start in order (each the next index) and deltas go to a started block; counts, sizes and
 * nesting are bounded by `limits`. Unknown event and delta types are skipped, as the API's
 * versioning policy asks.
 */
export function createMessageAccumulator(limits: ReplyLimits = REPLY_LIMITS): MessageAccumulator {
  const state: State = {
    limits,
    message: undefined,
    blocks: [],
    blockChars: [],
    messageChars: 0,
    hasStopped: false,
  };
  return {
    push: (event) => pushEvent(state, event),
    finish: () => finishMessage(state),
  };
}

function pushEvent(state: State, event: unknown): void {
  if (!isRecord(event) || typeof event.type !== "string") {
    throw new MalformedReplyError('an event is not a JSON object with a "type"');
  }
  const typed = event as Event;
  if (!KNOWN_EVENTS.has(typed.type)) return;
  if (nestsDeeperThan(typed, state.limits.maxEventDepth)) {
    throw new MalformedReplyError(
      `a ${typed.type} event nests deeper than ${state.limits.maxEventDepth} levels`,
    );
  }
  if (typed.type === "message_start") startMessage(state, typed);
  else if (state.message === undefined) {
    throw new MalformedReplyError(`a ${typed.type} event came before message_start`);
  } else if (typed.type === "content_block_start") startBlock(state, typed);
  else if (typed.type === "content_block_delta") applyDelta(state, typed);
  else if (typed.type === "content_block_stop") startedBlock(state, typed);
  else if (typed.type === "message_delta") updateMessage(state, state.message, typed);
  else state.hasStopped = true;
}

function startMessage(state: State, event: Event): void {
  if (state.message !== undefined) throw new MalformedReplyError("a second message_start came");
  if (!isRecord(event.message)) throw new MalformedReplyError("message_start holds no message");
  addChars(state, undefined, jsonChars(event.message));
  state.message = {};
  setFields(state.message, event.message);
}

/**
 * Fields only the OpenAI client sets on a message (`wire`, its record of what its server sent, a
 * reported cost among it; `provider`): a Messages-API server's fields of these names would be read
 * as that record.
 */
const CLIENT_FIELDS = new Set(["wire", "provider"]);

/** Copies a server's fields key by key, leaving out the client's own (and "__proto__", which would set the prototype). */
function setFields(message: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(fields)) {
    if (key !== "__proto__" && !CLIENT_FIELDS.has(key)) message[key] = value;
  }
}

/** A block must start at the next index: no gaps (a block at 200,000,000 would be a sparse array). */
function startBlock(state: State, event: Event): void {
  const { blocks, limits } = state;
  const index = event.index;
  if (index !== blocks.length) {
    throw new MalformedReplyError(
      `content_block_start for block ${describeIndex(index)}, but the next block is ${blocks.length}`,
    );
  }
  if (blocks.length >= limits.maxBlocks) {
    throw new MalformedReplyError(`the reply has more than ${limits.maxBlocks} content blocks`);
  }
  const block = event.content_block;
  if (!isRecord(block) || typeof block.type !== "string") {
    throw new MalformedReplyError(`content block ${index} has no type`);
  }
  if (
    block.type === "tool_use" &&
    (typeof block.id !== "string" || typeof block.name !== "string")
  ) {
    throw new MalformedReplyError(`tool_use block ${index} has no id or name`);
  }
  blocks.push({ ...block });
  state.blockChars.push(0);
  addChars(state, index, jsonChars(block));
}

/** The block a delta or stop event names; it must have started. */
function startedBlock(state: State, event: Event): OpenBlock {
  const index = event.index;
  const block = typeof index === "number" ? state.blocks[index] : undefined;
  if (block === undefined) {
    throw new MalformedReplyError(
      `${event.type} for block ${describeIndex(index)}, which never started (${state.blocks.length} did)`,
    );
  }
  return block;
}

function applyDelta(state: State, event: Event): void {
  const block = startedBlock(state, event);
  const index = event.index as number;
  const delta = event.delta;
  if (!isRecord(delta) || typeof delta.type !== "string") {
    throw new MalformedReplyError(`a delta for block ${index} has no type`);
  }
  const text = (field: string): string => {
    const value = delta[field];
    if (typeof value !== "string") {
      throw new MalformedReplyError(`a ${delta.type} for block ${index} has no ${field} string`);
    }
    addChars(state, index, value.length);
    return value;
  };
  const before = (field: string) => (typeof block[field] === "string" ? block[field] : "");
  if (delta.type === "text_delta") block.text = `${before("text")}${text("text")}`;
  else if (delta.type === "input_json_delta")
    block.inputJson = `${block.inputJson ?? ""}${text("partial_json")}`;
  else if (delta.type === "thinking_delta")
    block.thinking = `${before("thinking")}${text("thinking")}`;
  else if (delta.type === "signature_delta") block.signature = text("signature");
  else if (delta.type === "citations_delta") {
    addChars(state, index, jsonChars(delta.citation));
    block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
  }
}

/** `message_delta` carries the stop reason and the final output tokens. */
function updateMessage(state: State, message: Record<string, unknown>, event: Event): void {
  const { delta, usage } = event;
  if (!isRecord(delta)) throw new MalformedReplyError("message_delta holds no delta");
  if (usage !== undefined && usage !== null && !isRecord(usage)) {
    throw new MalformedReplyError("message_delta's usage is not an object");
  }
  addChars(state, undefined, jsonChars(delta) + jsonChars(usage ?? null));
  setFields(message, delta);
  if (isRecord(usage)) mergeUsage(message, usage);
}

/** Counts `chars` against the block's bound (when `index` is given) and the message's. */
function addChars(state: State, index: number | undefined, chars: number): void {
  const { limits } = state;
  if (index !== undefined) {
    const total = (state.blockChars[index] ?? 0) + chars;
    state.blockChars[index] = total;
    if (total > limits.maxBlockChars) {
      throw new MalformedReplyError(
        `content block ${index} is longer than ${limits.maxBlockChars} characters`,
      );
    }
  }
  state.messageChars += chars;
  if (state.messageChars > limits.maxMessageChars) {
    throw new MalformedReplyError(`the reply is longer than ${limits.maxMessageChars} characters`);
  }
}

function finishMessage(state: State): Record<string, unknown> {
  const { message } = state;
  // Some proxies close the stream after the stop reason, without message_stop. A stream that
  // ends before it is broken off, not malformed.
  if (message === undefined || (!state.hasStopped && (message.stop_reason ?? null) === null)) {
    throw new Error("the reply stream ended before the message was complete");
  }
  const isCutOff = message.stop_reason === "max_tokens";
  return { ...message, content: state.blocks.map((block) => closeBlock(block, isCutOff)) };
}

/** The block as the API returns it: a tool call's input parsed from its streamed JSON. */
function closeBlock(block: OpenBlock, isCutOff: boolean): Record<string, unknown> {
  const { inputJson, ...rest } = block;
  if (inputJson === undefined) return rest;
  return { ...rest, input: parseInput(inputJson, isCutOff) };
}

function parseInput(json: string, isCutOff: boolean): unknown {
  if (json.trim() === "") return {};
  try {
    // JSON.parse does not recurse: any nesting parses; the loop bounds it (MAX_TOOL_INPUT_DEPTH).
    return JSON.parse(json);
  } catch (error) {
    // Cut off mid-input (stop_reason max_tokens): the loop answers such a call without running it.
    if (isCutOff) return {};
    throw new MalformedReplyError(
      `a tool call's input in the reply stream is not valid JSON: ${clip(String(error), 200)}`,
    );
  }
}

/** `message_delta` carries the final output tokens (and sometimes updated input and cache counts). */
function mergeUsage(message: Record<string, unknown>, usage: Record<string, unknown>): void {
  const previous = isRecord(message.usage) ? message.usage : {};
  const updates = Object.fromEntries(
    Object.entries(usage).filter(([, value]) => value !== null && value !== undefined),
  );
  message.usage = { ...previous, ...updates };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Characters of a value's JSON, for the size bounds (its nesting is already bounded). */
function jsonChars(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** An index as it came, short: a number, or the JSON of whatever stood there. */
function describeIndex(index: unknown): string {
  return typeof index === "number" ? String(index) : clip(JSON.stringify(index) ?? "none", 40);
}
