import { clip } from "../../format.js";
import { nestsDeeperThan } from "../../json-depth.js";
import { MalformedReplyError } from "../malformed-reply.js";
import type { ReplyLimits } from "../reply-limits.js";
import { makeCallId } from "./tool-names.js";

/** One tool call while it streams: the server's id (or one made up), name and argument text. */
export type StreamedCall = { id: string; name: string; arguments: string };

/** What a chat-completions stream adds up to, before it becomes a Messages-API message. */
export type StreamedReply = {
  id: string | undefined;
  model: string | undefined;
  /** The `content` deltas joined (an inline `<think>` is split off later). */
  text: string;
  /** `reasoning_content`, `reasoning` or `reasoning_text` deltas joined. */
  reasoning: string;
  calls: StreamedCall[];
  finishReason: string | undefined;
  /** The last usage object the server sent, as it sent it. */
  usage: Record<string, unknown> | undefined;
};

/** Builds the reply from the stream's chunks; the chunks are the server's JSON, untrusted. */
export type ChunkAccumulator = {
  push(chunk: unknown): void;
  /** Throws when the stream ended without a finish reason (broken off, like a cut connection). */
  finish(): StreamedReply;
};

/** Where servers put reasoning; a delta's first one is taken (some send two copies). */
const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;

/** Longest id, model name or finish reason kept. */
const MAX_LABEL_CHARS = 200;

/** Longest usage object kept (real ones are a few hundred characters; some come on every chunk). */
const MAX_USAGE_CHARS = 10_000;

/** A call while it streams: whether the id is the server's, and the characters counted so far. */
type OpenCall = StreamedCall & { hasServerId: boolean; countedChars: number };

/** The accumulator's state: the reply so far, its calls by index, and characters counted. */
type State = {
  limits: ReplyLimits;
  reply: StreamedReply;
  calls: OpenCall[];
  callAt: Map<number, OpenCall>;
  chars: number;
};

/**
 * Accumulates a streamed chat completion (choice 0). Tool calls are keyed by `index`: a delta
 * opens a new call at an unseen index, or when it carries a non-empty id other than the server id
 * of the call at that index (proxies that send every parallel call on index 0); a call's name is
 * its first non-empty one. Arguments stay text until the end. Sizes are bounded by `limits`.
 */
export function createChunkAccumulator(limits: ReplyLimits): ChunkAccumulator {
  const state: State = {
    limits,
    reply: {
      id: undefined,
      model: undefined,
      text: "",
      reasoning: "",
      calls: [],
      finishReason: undefined,
      usage: undefined,
    },
    calls: [],
    callAt: new Map(),
    chars: 0,
  };
  return {
    push: (chunk) => pushChunk(state, chunk),
    finish() {
      const { reply, calls } = state;
      if (reply.finishReason === undefined) {
        throw new Error("the reply stream ended without a finish reason");
      }
      return {
        ...reply,
        calls: calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      };
    },
  };
}

function pushChunk(state: State, chunk: unknown): void {
  const { reply, limits } = state;
  if (!isRecord(chunk)) throw new MalformedReplyError("a chunk is not a JSON object");
  if (nestsDeeperThan(chunk, limits.maxEventDepth)) {
    throw new MalformedReplyError(`a chunk nests deeper than ${limits.maxEventDepth} levels`);
  }
  if (chunk.object === "error") {
    // vLLM's error inside a stream, not wrapped in `error` (the SDK throws on those).
    throw new Error(`the server sent an error: ${clip(String(chunk.message ?? ""))}`);
  }
  // The few fields kept as they came are clipped: the transcript records them.
  if (typeof chunk.id === "string") reply.id ??= clip(chunk.id, MAX_LABEL_CHARS);
  if (typeof chunk.model === "string") reply.model ??= clip(chunk.model, MAX_LABEL_CHARS);
  if (isRecord(chunk.usage)) reply.usage = boundedUsage(chunk.usage);
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!isRecord(choice)) return;
  if (typeof choice.finish_reason === "string") {
    reply.finishReason = clip(choice.finish_reason, MAX_LABEL_CHARS);
  }
  const delta = isRecord(choice.delta) ? choice.delta : {};
  if (typeof delta.content === "string") {
    reply.text += delta.content;
    count(state, delta.content.length, reply.text);
  }
  const piece = REASONING_FIELDS.map((field) => delta[field]).find((v) => typeof v === "string");
  if (typeof piece === "string") {
    reply.reasoning += piece;
    count(state, piece.length, reply.reasoning);
  }
  if (Array.isArray(delta.tool_calls)) {
    for (const call of delta.tool_calls) if (isRecord(call)) addToCall(state, call);
  }
}

function addToCall(state: State, delta: Record<string, unknown>): void {
  const index = typeof delta.index === "number" ? delta.index : 0;
  const id = typeof delta.id === "string" && delta.id !== "" ? delta.id : undefined;
  let call = state.callAt.get(index);
  if (call === undefined || (id !== undefined && call.hasServerId && call.id !== id)) {
    if (state.calls.length >= state.limits.maxBlocks) {
      throw new MalformedReplyError(`the reply has more than ${state.limits.maxBlocks} tool calls`);
    }
    call = {
      id: id ?? makeCallId(),
      name: "",
      arguments: "",
      hasServerId: id !== undefined,
      countedChars: 0,
    };
    state.callAt.set(index, call);
    state.calls.push(call);
  } else if (id !== undefined && !call.hasServerId) {
    call.id = id;
    call.hasServerId = true;
  }
  const fn = isRecord(delta.function) ? delta.function : {};
  if (call.name === "" && typeof fn.name === "string") call.name = fn.name;
  if (typeof fn.arguments === "string") call.arguments += fn.arguments;
  const callChars = call.name.length + call.arguments.length;
  count(state, callChars - call.countedChars, call.arguments);
  call.countedChars = callChars;
}

function boundedUsage(usage: Record<string, unknown>): Record<string, unknown> {
  const chars = JSON.stringify(usage).length;
  if (chars > MAX_USAGE_CHARS) {
    throw new MalformedReplyError(`a usage object is longer than ${MAX_USAGE_CHARS} characters`);
  }
  return usage;
}

/** Counts `added` characters against the message's bound, and `part` against a block's. */
function count(state: State, added: number, part: string): void {
  const { limits } = state;
  state.chars += added;
  if (state.chars > limits.maxMessageChars) {
    throw new MalformedReplyError(`the reply is longer than ${limits.maxMessageChars} characters`);
  }
  if (part.length > limits.maxBlockChars) {
    throw new MalformedReplyError(
      `a part of the reply is longer than ${limits.maxBlockChars} characters`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
