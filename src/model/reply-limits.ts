/*
 * Bounds on what a model reply may hold, in one place. The API is input: a broken or hostile
 * endpoint (a proxy, a gateway, a test server) can send anything, and without these a block at
 * index 200,000,000 or an endless text delta stream exhausts the heap. Each bound is far above
 * what the Messages API really sends: its largest output is 128k tokens (300k in a batch beta),
 * about 0.5 to 1.2 million characters, streamed in at most ~30 MB of events, in a few hundred
 * blocks at most, nested a handful of levels deep.
 */

/** Bounds on one streamed reply; a reply past one ends that model call as malformed. */
export type ReplyLimits = {
  /** Content blocks in one message. */
  maxBlocks: number;
  /** Characters of one block: its text, thinking or tool input JSON, and the fields it started with. */
  maxBlockChars: number;
  /** Characters of the whole message: every block, plus the message's own fields. */
  maxMessageChars: number;
  /** Nesting of one server-sent event's JSON (real events nest about 5 levels). */
  maxEventDepth: number;
  /** Bytes of one HTTP response body, the SSE framing included (a line without end counts too). */
  maxResponseBytes: number;
  /**
   * Bytes of one line of that body. The SDKs join a line's pieces anew with every chunk, so one
   * endless line costs time that grows with its square (32 MB: ~30 s of CPU) before the body
   * bound is reached; real events are a few KB.
   */
  maxLineBytes: number;
};

export const REPLY_LIMITS: ReplyLimits = {
  maxBlocks: 10_000,
  maxBlockChars: 8_000_000,
  maxMessageChars: 16_000_000,
  maxEventDepth: 100,
  // Each task may meet a hostile endpoint at once; a body this size peaks at ~250 MB of heap.
  maxResponseBytes: 64 * 1024 * 1024,
  maxLineBytes: 4 * 1024 * 1024,
};

/**
 * Deepest nesting of a tool call's input that reaches the tool. A deeper input is answered with an
 * error result (the run goes on); the reply keeps its first `MAX_TOOL_INPUT_DEPTH + 1` levels.
 */
export const MAX_TOOL_INPUT_DEPTH = 64;
