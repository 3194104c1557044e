import { createHash } from "node:crypto";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { ApiMessage, AssistantBlock } from "../../src/model/model-client.js";
import { MOCKED_MESSAGES_URL } from "./model-server.js";
import { toSse } from "./replies.js";

type WireBlock = Record<string, unknown>;
type WireMessage = { role: string; content: string | WireBlock[] };
type WireRequest = {
  model: string;
  messages: WireMessage[];
  thinking?: { type: string; block_binding?: { prefix_mismatch_behavior?: string } };
};

const BINDING_BETA = "thinking-binding-controls-2026-08-01";

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
 * Signs a thinking block the way newer Claude models bind it: to its model, the conversation
 * before it (the messages before its turn, and the blocks before it in its turn) and its own text.
 * `cache_control` is not content, so it is left out, as the API leaves it out.
 */
export function bindingSignature(
  model: string,
  before: readonly WireMessage[],
  turnBefore: readonly WireBlock[],
  text: string,
): string {
  const strip = ({ cache_control: _cacheControl, ...rest }: WireBlock) => rest;
  const canonical = before.map((message) => ({
    role: message.role,
    content:
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content.map(strip),
  }));
  const hash = createHash("sha256")
    .update(JSON.stringify(sortedKeys([model, canonical, turnBefore.map(strip), text])))
    .digest("base64");
  return `sig_${hash}`;
}

const isSigned = (block: WireBlock) =>
  block.type === "thinking" || block.type === "redacted_thinking";
const signedText = (block: WireBlock) =>
  block.type === "thinking" ? String(block.thinking) : "[redacted]";
const signatureOf = (block: WireBlock) =>
  block.type === "thinking" ? block.signature : block.data;

/** A signed block that fails the binding check, as the API names places: `messages.i.content.j`. */
export type BindingFailure = { path: string; i: number; j: number };

/** The signed blocks of `messages` whose model or conversation changed since they were signed. */
export function bindingFailures(model: string, messages: readonly WireMessage[]): BindingFailure[] {
  const failures: BindingFailure[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const [j, block] of message.content.entries()) {
      if (!isSigned(block)) continue;
      const expected = bindingSignature(
        model,
        messages.slice(0, i),
        message.content.slice(0, j),
        signedText(block),
      );
      if (signatureOf(block) !== expected)
        failures.push({ path: `messages.${i}.content.${j}`, i, j });
    }
  }
  return failures;
}

/** Why the API would refuse `messages` under its default binding behavior (`error`), or undefined. */
export function bindingProblem(
  model: string,
  messages: readonly WireMessage[],
): string | undefined {
  const [first] = bindingFailures(model, messages);
  return first === undefined
    ? undefined
    : `${first.path}: the conversation before this block differs from the one it was created in, or another model created it`;
}

/**
 * The API's rule with manual thinking on (`type: "enabled"`, where the model thinks every turn):
 * a newest turn that called tools must start with its thinking. Adaptive thinking may skip a turn.
 */
function finalTurnProblem(messages: readonly WireMessage[]): string | undefined {
  const index = messages.findLastIndex((message) => message.role === "assistant");
  const newest = messages[index];
  if (newest === undefined || typeof newest.content === "string") return undefined;
  const first = newest.content[0];
  if (!newest.content.some((block) => block.type === "tool_use")) return undefined;
  if (first !== undefined && isSigned(first)) return undefined;
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
}

/** One turn the server plays: its thinking, then a tool call or a final text. */
export type BindingTurn = {
  /** Undefined: a turn the model did not think on (adaptive thinking may skip one). */
  thinking?: string;
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
  /** Each request's `anthropic-beta` header, in order. */
  readonly betas: Array<string | null>;
  /** Requests refused, with the API's reason. */
  readonly refusals: string[];
};

/**
 * A Messages API double (msw) that treats signed thinking as Anthropic's API does today:
 * - with manual thinking on, a newest assistant turn that called tools must start with a signed
 *   block;
 * - each `thinking` and `redacted_thinking` block sent back must carry the signature it was made
 *   with, for its model and the conversation before it. A block that fails makes the request a
 *   400, unless `thinking.block_binding.prefix_mismatch_behavior` is `drop_block`: then it and the
 *   rest of its turn's consecutive signed blocks are dropped, and (with the binding beta) each drop
 *   is reported in the reply's `input_transformations`.
 * Its own replies are signed over the request as sent, which is what comes back next time.
 */
export function useBindingMessagesApi(): BindingServer {
  const turns: BindingTurn[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const betas: Array<string | null> = [];
  const refusals: string[] = [];
  let counter = 0;
  const refuse = (message: string) => {
    refusals.push(message);
    return HttpResponse.json(
      { type: "error", error: { type: "invalid_request_error", message } },
      { status: 400 },
    );
  };
  const server = setupServer(
    http.post(MOCKED_MESSAGES_URL, async ({ request }) => {
      const body = (await request.json()) as WireRequest;
      requests.push(body as unknown as Record<string, unknown>);
      betas.push(request.headers.get("anthropic-beta"));
      const finalTurn =
        body.thinking?.type === "enabled" ? finalTurnProblem(body.messages) : undefined;
      if (finalTurn !== undefined) return refuse(finalTurn);
      const failures = bindingFailures(body.model, body.messages);
      const drops = body.thinking?.block_binding?.prefix_mismatch_behavior === "drop_block";
      if (failures.length > 0 && !drops) {
        return refuse(bindingProblem(body.model, body.messages) ?? "binding");
      }
      const shown = dropped(body.messages, failures);
      // The model is shown `shown.messages`; this double only reports the drops.
      const turn = turns.shift();
      if (turn === undefined) {
        return HttpResponse.json(
          { type: "error", error: { type: "api_error", message: "no turn left to play" } },
          { status: 500, headers: { "x-should-retry": "false" } },
        );
      }
      counter += 1;
      // Bound to the request as sent: that is what the client sends back next time.
      const reply = signedReply(body.model, body.messages, turn, counter);
      const reported = betas.at(-1)?.includes(BINDING_BETA)
        ? { ...reply, input_transformations: shown.transformations }
        : reply;
      return new HttpResponse(toSse(reported), {
        headers: { "content-type": "text/event-stream" },
      });
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => {
    turns.length = 0;
    requests.length = 0;
    betas.length = 0;
    refusals.length = 0;
  });
  afterAll(() => server.close());
  return { play: (...more) => turns.push(...more), requests, betas, refusals };
}

/**
 * The conversation as the model is shown it, without the failing blocks and the rest of their
 * turns' consecutive signed blocks, and the API's report of each drop.
 */
function dropped(messages: readonly WireMessage[], failures: readonly BindingFailure[]) {
  const transformations: Array<Record<string, string>> = [];
  const shown = messages.map((message, i) => {
    const first = failures.find((failure) => failure.i === i);
    if (first === undefined || typeof message.content === "string") return message;
    let j = first.j;
    const content = [...message.content];
    while (j < content.length && isSigned(content[j] as WireBlock)) {
      transformations.push({
        type: "thinking_dropped",
        path: `messages.${i}.content.${j}`,
        reason: "prefix_binding_mismatch",
      });
      j += 1;
    }
    content.splice(first.j, j - first.j);
    return { ...message, content };
  });
  return { messages: shown, transformations };
}

function signedReply(
  model: string,
  messages: readonly WireMessage[],
  turn: BindingTurn,
  n: number,
): ApiMessage {
  const content: AssistantBlock[] = [];
  const sign = (text: string) => bindingSignature(model, messages, content as WireBlock[], text);
  if (turn.thinking !== undefined) {
    content.push({ type: "thinking", thinking: turn.thinking, signature: sign(turn.thinking) });
  }
  if (turn.redacted === true) content.push({ type: "redacted_thinking", data: sign("[redacted]") });
  if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
  if (turn.toolUse !== undefined) {
    content.push({ type: "tool_use", id: `toolu_bind_${n}`, ...turn.toolUse });
  }
  return {
    id: `msg_bind_${n}`,
    type: "message",
    role: "assistant",
    model,
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
