import type { Middleware } from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import type Anthropic from "@anthropic-ai/sdk/index";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);

  // agent-run resolves the credential itself: never the SDK's profiles or config files.
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

import { clip } from "../format.js";
import { categoryOf, isStreamBreak, retryReporter, toModelError } from "./anthropic-errors.js";
import { CLIPPED_CONSOLE, withSdkWarnings } from "./clipped-console.js";
import { type Endpoint, isEventStream, NotEventStreamError } from "./endpoint-hints.js";
import { limitBodyBytes } from "./limit-body-bytes.js";
import { MalformedReplyError } from "./malformed-reply.js";
import { createMessageAccumulator } from "./message-accumulator.js";
import {
  type ApiMessage,
  type AssistantBlock,
  isSignedBlock,
  type Message,
  type ModelClient,
  type ModelRequest,
  toModelReply,
  withoutBlocks,
} from "./model-client.js";
import { REPLY_LIMITS, type ReplyLimits } from "./reply-limits.js";
import { withStreamRetries } from "./stream-retries.js";

export type AnthropicModelOptions = {
  /** Sent as `x-api-key`. At most one of `apiKey` and `authToken`; neither: no credential sent. */
  apiKey?: string | undefined;
  /** Sent as `Authorization: Bearer` (gateways that want a token: `ANTHROPIC_AUTH_TOKEN`). */
  authToken?: string | undefined;
  /** Default https://api.anthropic.com; the SDK never reads ANTHROPIC_BASE_URL itself. */
  baseURL?: string | undefined;
  /** Names the provider, base URL and key variable in error hints; default Anthropic's. */
  endpoint?: Endpoint;
  /**
   * Retries of a failed request (the SDK's loop) and of a broken stream (this client's), each
   * reported through `onRetry`.
   */
  maxRetries?: number;
  /** Per-request timeout of the SDK (the task's own timeout aborts through the signal). */
  requestTimeoutMs?: number;
  /** First wait before retrying a broken stream; doubles each time, at most 8 s. */
  retryBaseDelayMs?: number;
  /** Bounds on a reply (tests lower them); default `REPLY_LIMITS`. */
  replyLimits?: ReplyLimits;
};

const EPHEMERAL = { type: "ephemeral" } as const;

/** The beta that lets a request have failing thinking blocks dropped and reports each drop. */
const THINKING_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/**
 * The Messages API, streamed, behind `ModelClient`. The SDK retries a request that fails before
 * its reply starts; a reply stream that breaks after it started, or turns out malformed (see
 * `MalformedReplyError`, `ReplyLimits`), is retried here, with the same budget and backoff: the
 * one retry loop besides the SDK's.
 */
export function createAnthropicModel(options: AnthropicModelOptions): ModelClient {
  const maxRetries = options.maxRetries ?? 4;
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const endpoint = options.endpoint ?? {
    provider: "anthropic",
    baseURL,
    apiKeyEnv: "ANTHROPIC_API_KEY",
  };
  const client = new MessagesClient({
    ...credentialOptions(options),
    // Every option the SDK would otherwise read from the environment is given explicitly.
    baseURL,
    webhookKey: null,
    maxRetries,
    timeout: options.requestTimeoutMs ?? 10 * 60_000,
    logger: CLIPPED_CONSOLE,
  });
  const limits = options.replyLimits ?? REPLY_LIMITS;

  const baseDelayMs = options.retryBaseDelayMs ?? 500;
  return {
    async complete(request, completeOptions) {
      // Anthropic's own API binds signed thinking to its conversation and model; other
      // Messages-API servers don't, and may not know the beta field.
      const params = toParams(request, endpoint.provider === "anthropic");
      return withStreamRetries(
        async (started) => {
          // `create` with `stream: true` hands over the raw events; the SDK's MessageStream would
          // also re-parse partial tool input and emit events on every delta.
          const events = await withSdkWarnings("the Anthropic SDK", completeOptions.onWarning, () =>
            client.messages.create(
              { ...params, stream: true },
              {
                signal: completeOptions.signal,
                ...("thinking" in params && endpoint.provider === "anthropic"
                  ? { headers: { "anthropic-beta": THINKING_BINDING_BETA } }
                  : {}),
                middleware: [
                  // Outside the retry reporter: the SDK does not retry it, so no retry is reported.
                  requireEventStream,
                  retryReporter(maxRetries, completeOptions),
                  limitBodyBytesOf(limits.maxResponseBytes, limits.maxLineBytes),
                ],
              },
            ),
          );
          started();
          const accumulator = createMessageAccumulator(limits);
          await readEvents(events, (event) => accumulator.push(event));
          // Built from the parsed events: plain JSON data, the shape the API returns unstreamed.
          return toModelReply(accumulator.finish() as ApiMessage);
        },
        {
          maxRetries,
          baseDelayMs,
          isStreamBreak,
          categoryOf,
          toModelError: (error) => toModelError(error, completeOptions.signal, endpoint),
        },
        completeOptions,
      );
    },
  };
}

const DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * The credential as the SDK takes it: the key, else the token, else none, with the Authorization
 * header marked as omitted on purpose (a local server needs no key; the SDK would refuse).
 */
function credentialOptions(options: AnthropicModelOptions) {
  if (options.apiKey !== undefined) return { apiKey: options.apiKey, authToken: null };
  if (options.authToken !== undefined) return { apiKey: null, authToken: options.authToken };
  return { apiKey: null, authToken: null, defaultHeaders: { authorization: null } };
}

/**
 * A 200 reply that is not an event stream (a web page at a wrong base URL) fails here, before the
 * SDK reads it as one; an error thrown by a middleware is not retried by the SDK.
 */
const requireEventStream: Middleware = async (request, next) => {
  const response = await next(request);
  if (response.ok && !isEventStream(response)) {
    await response.body?.cancel();
    throw new NotEventStreamError(response.headers.get("content-type"));
  }
  return response;
};

/** Feeds each event to `push`; data that is not JSON (the SDK's parse fails) is malformed. */
async function readEvents(events: AsyncIterable<unknown>, push: (event: unknown) => void) {
  try {
    for await (const event of events) push(event);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new MalformedReplyError(`an event's data is not JSON: ${clip(error.message, 200)}`);
  }
}

/** Bounds the response body (see `limitBodyBytes`). */
function limitBodyBytesOf(maxBytes: number, maxLineBytes: number): Middleware {
  return async (request, next) => limitBodyBytes(await next(request), maxBytes, maxLineBytes);
}

/**
 * Builds the request with prompt-cache breakpoints on the tools, the system prompt and the newest
 * message, so each turn re-reads the conversation so far from the cache.
 */
function toParams(
  request: ModelRequest,
  hasBindingControls: boolean,
): Anthropic.MessageCreateParamsNonStreaming {
  // Signed blocks sent without `thinking` would be checked with no drop setting, for nothing.
  const isThinkingLeftOut = request.reasoning !== undefined && !mayThink(request);
  const tools: Anthropic.Tool[] = request.tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.inputSchema },
    ...(index === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
  return {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    system: [{ type: "text", text: request.system, cache_control: EPHEMERAL }],
    messages: request.messages.map((message, index) =>
      toParam(message, index === request.messages.length - 1, isThinkingLeftOut),
    ),
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.stopSequences?.length ? { stop_sequences: [...request.stopSequences] } : {}),
    ...thinkingParams(request, hasBindingControls),
  };
}

/**
 * The task's reasoning in the Messages API's terms: a budget is manual thinking; an effort alone
 * is adaptive thinking, with the effort in `output_config`.
 *
 * Signed thinking goes back verbatim, and the API checks each block against the conversation and
 * model it was made in. Context trimming changes old tool results, and a fork may go on with
 * another model, so on the anthropic preset a block that fails is dropped by the API rather than
 * refused (`prefix_mismatch_behavior: "drop_block"`); the reply's `input_transformations` says
 * which, and the transcript keeps it.
 */
function thinkingParams(request: ModelRequest, hasBindingControls: boolean) {
  const { reasoning } = request;
  if (reasoning === undefined) return {};
  const effort =
    reasoning.effort === undefined ? {} : { output_config: { effort: reasoning.effort } };
  if (!mayThink(request)) return effort;
  const binding = hasBindingControls
    ? { block_binding: { prefix_mismatch_behavior: "drop_block" as const } }
    : {};
  const thinking =
    reasoning.budgetTokens === undefined
      ? { type: "adaptive" as const, ...binding }
      : { type: "enabled" as const, budget_tokens: reasoning.budgetTokens, ...binding };
  // `block_binding` is a beta field, typed only in the SDK's beta namespace.
  return { thinking: thinking as Anthropic.ThinkingConfigParam, ...effort };
}

/**
 * Whether the request may think. Manual thinking has the model think on every turn, and the API
 * refuses it when the newest turn called tools without its thinking first: a turn recorded
 * without (a fork of a run without reasoning, or of an offline recording, whose signed blocks are
 * left out) has the rest of that tool loop go on without thinking. Adaptive thinking may skip a
 * turn, so a turn without thinking is one it allows.
 */
function mayThink(request: ModelRequest): boolean {
  if (request.reasoning?.budgetTokens === undefined) return true;
  const newest = request.messages.findLast((message) => message.role === "assistant");
  if (newest === undefined || newest.role !== "assistant") return true;
  const first = newest.content.find((block) => block.type !== "reasoning");
  const callsTools = newest.content.some((block) => block.type === "tool_use");
  return !callsTools || (first !== undefined && isSignedBlock(first));
}

function toParam(
  message: Message,
  isNewest: boolean,
  isThinkingLeftOut: boolean,
): Anthropic.MessageParam {
  // Another provider's reasoning (a fork of an OpenAI-format run) is the transcript's, not the API's.
  const isLeftOut = (block: AssistantBlock) =>
    block.type === "reasoning" || (isThinkingLeftOut && isSignedBlock(block));
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.role === "assistant"
        ? withoutBlocks(message.content, isLeftOut)
        : message.content;
  if (!isNewest) return { role: message.role, content: blocks } as Anthropic.MessageParam;
  const last = blocks.length - 1;
  const content = blocks.map((block, index) =>
    index === last ? { ...block, cache_control: EPHEMERAL } : block,
  );
  return { role: message.role, content } as Anthropic.MessageParam;
}
