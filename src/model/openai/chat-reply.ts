import {
  type ApiMessage,
  type AssistantBlock,
  INVALID_JSON_INPUT_KEY,
  type ReasoningBlock,
  tokenCount,
} from "../model-client.js";
import type { StreamedReply } from "./chunk-accumulator.js";
import { type ToolNameMap, toNeutralId } from "./tool-names.js";

/** What turning a reply into a message needs besides the reply. */
export type ReplyContext = {
  /** The request's model, for a server that names none. */
  model: string;
  provider: string;
  names: ToolNameMap;
  /** Characters of the request body, for the estimate when the server reports no usage. */
  requestChars: () => number;
  /**
   * The call ids this client already gave out: a server that numbers calls anew in each reply
   * (`call_0`) would give one id to calls of two replies, or of two agents of a run.
   */
  usedIds: Set<string>;
};

/** Characters per token of the estimate: rough, and on the high side for code. */
const CHARS_PER_TOKEN = 4;

/**
 * The accumulated stream as a Messages-API message, so the loop, transcript, replay and reports
 * need nothing new: a `reasoning` block (see `ReasoningBlock`), the text, then the tool calls.
 * The server's own finish reason and usage are kept under `wire`, the provider under `provider`.
 */
export function toApiMessage(reply: StreamedReply, context: ReplyContext): ApiMessage {
  const { names } = context;
  const { reasoning, text } = splitThinking(reply.reasoning, reply.text);
  const content: AssistantBlock[] = [];
  const reasoningBlock: ReasoningBlock = { type: "reasoning", text: reasoning };
  if (reasoning !== "") content.push(reasoningBlock);
  if (text !== "") content.push({ type: "text", text });
  const seen = context.usedIds;
  for (const call of reply.calls) {
    let id = toNeutralId(call.id);
    // Two calls with one id (a proxy's bug, or ids numbered anew in each reply) would get one
    // result each under the same id.
    for (let n = seen.size; seen.has(id); n += 1) id = toNeutralId(`${call.id}#${n}`);
    seen.add(id);
    content.push({
      type: "tool_use",
      id,
      name: names.toNeutral(call.name),
      input: parseArguments(call.arguments),
    });
  }
  return {
    id: reply.id ?? "",
    type: "message",
    role: "assistant",
    model: reply.model ?? context.model,
    content,
    stop_reason: stopReasonOf(reply.finishReason, reply.calls.length > 0),
    stop_sequence: null,
    usage:
      reply.usage === undefined ? estimatedUsage(reply, context) : toMessagesUsage(reply.usage),
    provider: context.provider,
    wire: {
      finish_reason: reply.finishReason ?? null,
      usage: reply.usage ?? null,
      ...(reply.usage === undefined ? { usage_estimated: true } : {}),
    },
  };
}

/**
 * A server that reports no usage (no `stream_options`, or one that ignores it) still counts
 * against the token limits: input and output estimated from their characters.
 */
function estimatedUsage(reply: StreamedReply, context: ReplyContext): Record<string, number> {
  const outputChars = reply.calls.reduce(
    (sum, call) => sum + call.name.length + call.arguments.length,
    reply.text.length + reply.reasoning.length,
  );
  return {
    input_tokens: Math.ceil(context.requestChars() / CHARS_PER_TOKEN),
    output_tokens: Math.ceil(outputChars / CHARS_PER_TOKEN),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/**
 * Whether the model called tools is decided by the calls (OpenAI with a named tool choice, and
 * Ollama, end with `stop`); `length` is the output limit's cut-off, `content_filter` a refusal.
 */
export function stopReasonOf(finishReason: string | undefined, hasCalls: boolean): string {
  if (finishReason === "length") return "max_tokens";
  if (finishReason === "content_filter") return "refusal";
  return hasCalls ? "tool_use" : "end_turn";
}

/**
 * Arguments parsed once, at the end. Text that is not JSON is kept under `INVALID_JSON_INPUT_KEY`,
 * so the loop answers the call with an error rather than run it with made-up input.
 */
export function parseArguments(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json);
  } catch {
    return { [INVALID_JSON_INPUT_KEY]: json };
  }
}

/** A reply whose content starts with `<think>` (DeepSeek R1 distills, Qwen): its reasoning split off. */
export function splitThinking(
  reasoning: string,
  text: string,
): { reasoning: string; text: string } {
  const match = /^\s*<think>/.exec(text);
  if (match === null) return { reasoning, text };
  const rest = text.slice(match[0].length);
  const end = rest.indexOf("</think>");
  // No closing tag: cut off while thinking, so all of it is reasoning.
  const thought = end === -1 ? rest : rest.slice(0, end);
  const after = end === -1 ? "" : rest.slice(end + "</think>".length);
  return { reasoning: `${reasoning}${thought.trim()}`, text: after.trimStart() };
}

/**
 * Usage in the Messages API's names. `prompt_tokens` includes the cached tokens (OpenAI's
 * `prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`), so input is the
 * rest; `completion_tokens` already includes reasoning tokens. Counts are read with `tokenCount`.
 */
export function toMessagesUsage(
  usage: Record<string, unknown> | undefined,
): Record<string, number> {
  const details = usage?.prompt_tokens_details;
  const detailsCached =
    typeof details === "object" && details !== null && "cached_tokens" in details
      ? details.cached_tokens
      : undefined;
  const cached = tokenCount(detailsCached ?? usage?.prompt_cache_hit_tokens);
  const prompt = tokenCount(usage?.prompt_tokens);
  return {
    input_tokens: Math.max(0, prompt - cached),
    output_tokens: tokenCount(usage?.completion_tokens),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
