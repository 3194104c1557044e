import { createHash } from "node:crypto";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ApiMessage, AssistantBlock } from "../../src/model/model-client.js";
import { MOCKED_MESSAGES_URL } from "./model-server.js";
import { toSse } from "./replies.js";

type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

/**
 * Signs a thinking block the way newer Claude models bind it: over the conversation before it
 * (the messages before its turn, and the blocks before it in its turn) and its own text.
 * `cache_control` is not content, so it is left out, as the API leaves it out.
 */
export function bindingSignature(
  before: readonly WireMessage[],
  turnBefore: readonly Record<string, unknown>[],
  text: string,
): string {
  const strip = (block: Record<string, unknown>) => {
    const { cache_control: _cacheControl, ...rest } = block;
    return rest;
  };
  const canonical = before.map((message) => ({
    role: message.role,
    content:
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content.map(strip),
  }));
  const hash = createHash("sha256")
    .update(JSON.stringify(sortedKeys([canonical, turnBefore.map(strip), text])))
    .digest("base64");
  return `sig_${hash}`;
}

/** `value` with every object's keys in order, so the signature does not depend on key order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, inner]) => [key, sortedKeys(inner)]),
  );
}

/**
 * Why the API would refuse `messages` (the first signed block whose conversation changed since it
 * was signed, named as the API names places: `messages.i.content.j`), or undefined.
 */
export function bindingProblem(messages: readonly WireMessage[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const [j, block] of message.content.entries()) {
      const text =
        block.type === "thinking"
          ? String(block.thinking)
          : block.type === "redacted_thinking"
            ? "[redacted]"
            : undefined;
      if (text === undefined) continue;
      const signed = block.type === "thinking" ? block.signature : block.data;
      const expected = bindingSignature(messages.slice(0, i), message.content.slice(0, j), text);
      if (signed !== expected) {
        return `messages.${i}.content.${j}: the conversation before this ${String(block.type)} block differs from the one it was created in`;
      }
    }
  }
  return undefined;
}

/** One turn the server plays: its thinking, then a tool call or a final text. */
export type BindingTurn = {
  thinking: string;
  /** Also a redacted block after the thinking. */
  redacted?: boolean;
  toolUse?: { name: string; input: Record<string, unknown> };
  text?: string;
  outputTokens?: number;
};

export type BindingServer = {
  play(...turns: BindingTurn[]): void;
  /** Request bodies, in order. */
  readonly requests: Array<Record<string, unknown>>;
  /** Requests refused for a signed block whose conversation changed, with the API's reason. */
  readonly refusals: string[];
};

/**
 * A Messages API double (msw) that checks signed reasoning as newer Claude models do: every
 * `thinking` and `redacted_thinking` block sent back must carry the signature it was created with
 * over the conversation before it, else the request fails with a 400, as with the API's default
 * `prefix_mismatch_behavior: "error"`. Its own replies are signed over the request's messages.
 */
export function useBindingMessagesApi(): BindingServer {
  const turns: BindingTurn[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const refusals: string[] = [];
  let counter = 0;
  const server = setupServer(
    http.post(MOCKED_MESSAGES_URL, async ({ request }) => {
      const body = (await request.json()) as { messages: WireMessage[] };
      requests.push(body as unknown as Record<string, unknown>);
      const problem = bindingProblem(body.messages);
      if (problem !== undefined) {
        refusals.push(problem);
        return HttpResponse.json(
          { type: "error", error: { type: "invalid_request_error", message: problem } },
          { status: 400 },
        );
      }
      const turn = turns.shift();
      if (turn === undefined) {
        return HttpResponse.json(
          { type: "error", error: { type: "api_error", message: "no turn left to play" } },
          { status: 500, headers: { "x-should-retry": "false" } },
        );
      }
      counter += 1;
      return new HttpResponse(toSse(signedReply(body.messages, turn, counter)), {
        headers: { "content-type": "text/event-stream" },
      });
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => {
    turns.length = 0;
    requests.length = 0;
    refusals.length = 0;
  });
  afterAll(() => server.close());
  return { play: (...more) => turns.push(...more), requests, refusals };
}

function signedReply(messages: readonly WireMessage[], turn: BindingTurn, n: number): ApiMessage {
  const content: AssistantBlock[] = [];
  const sign = (text: string) =>
    bindingSignature(messages, content as Array<Record<string, unknown>>, text);
  content.push({ type: "thinking", thinking: turn.thinking, signature: sign(turn.thinking) });
  if (turn.redacted === true) content.push({ type: "redacted_thinking", data: sign("[redacted]") });
  if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
  if (turn.toolUse !== undefined) {
    content.push({ type: "tool_use", id: `toolu_bind_${n}`, ...turn.toolUse });
  }
  return {
    id: `msg_bind_${n}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-5-5",
    content,
    stop_reason: turn.toolUse === undefined ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: {
      input_tokens: 100,
      output_tokens: turn.outputTokens ?? 50,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}
