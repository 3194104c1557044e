import type { Middleware } from "@anthropic-ai/sdk";
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk/error";
import type Anthropic from "@anthropic-ai/sdk/index";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";
import { messageOf } from "../errors.js";
import { httpFetch } from "./http-fetch.js";
import { createMessageAccumulator } from "./message-accumulator.js";
import type {
  ApiMessage,
  CompleteOptions,
  Message,
  ModelClient,
  ModelRequest,
  RetryNotice,
} from "./model-client.js";
import { ModelError, toModelReply } from "./model-client.js";

export type AnthropicModelOptions = {
  apiKey: string;
  /** Defaults to the SDK's own (https://api.anthropic.com). */
  baseURL?: string | undefined;
  /** The SDK's retry loop is the only one; each retry is reported through `onRetry`. */
  maxRetries?: number;
  /** Per-request timeout of the SDK (the task's own timeout aborts through the signal). */
  requestTimeoutMs?: number;
  /** First wait before retrying a broken stream; doubles each time, at most 8 s. */
  retryBaseDelayMs?: number;
  /**
   * Whether the SDK records OpenTelemetry spans (and propagates trace context) as it does by
   * default; see `isTracingWanted`. False skips building them.
   */
  isTracingOn?: boolean;
  /**
   * Send requests with the global `fetch`, as the SDK does by default, instead of `httpFetch`
   * (node:http): for when this process configured fetch's transport (`isGlobalFetchConfigured`).
   */
  isGlobalFetchWanted?: boolean;
};

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The SDK's client with the Messages API only. The full `Anthropic` client builds every resource
 * of the API (beta, files, models, organization, …); built from `BaseAnthropic`, the bundle leaves
 * them out, and agent-run loads and starts faster.
 */
class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}

/** The Messages API, streamed, behind `ModelClient`; the only module that imports the SDK. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelClient {
  const maxRetries = options.maxRetries ?? 4;
  const client = new MessagesClient({
    apiKey: options.apiKey,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    maxRetries,
    ...(options.isGlobalFetchWanted === true ? {} : { fetch: httpFetch }),
    timeout: options.requestTimeoutMs ?? 10 * 60_000,
    ...(options.isTracingOn === false ? { openTelemetry: false } : {}),
  });

  const baseDelayMs = options.retryBaseDelayMs ?? 500;
  return {
    async complete(request, completeOptions) {
      const params = toParams(request);
      // The SDK retries a request that fails before the reply starts; a stream that breaks
      // after it started is retried here, with the same budget and backoff.
      for (let attempt = 1; ; attempt += 1) {
        let hasStarted = false;
        try {
          // `create` with `stream: true` hands over the raw events; the SDK's MessageStream would
          // also re-parse partial tool input and emit events on every delta.
          const events = await client.messages.create(
            { ...params, stream: true },
            {
              signal: completeOptions.signal,
              middleware: [retryReporter(maxRetries, completeOptions)],
            },
          );
          hasStarted = true;
          const accumulator = createMessageAccumulator();
          for await (const event of events) accumulator.push(event);
          // Built from the parsed events: plain JSON data, the shape the API returns unstreamed.
          return toModelReply(accumulator.finish() as ApiMessage);
        } catch (error) {
          const canRetry =
            hasStarted &&
            attempt <= maxRetries &&
            !completeOptions.signal.aborted &&
            isStreamBreak(error);
          if (!canRetry) throw toModelError(error, completeOptions.signal);
          const delayMs = Math.min(baseDelayMs * 2 ** (attempt - 1), 8_000);
          completeOptions.onRetry?.({
            attempt,
            maxRetries,
            status: null,
            delayMs,
            error: `stream interrupted: ${messageOf(error)}`,
          });
          await sleep(delayMs, completeOptions.signal);
        }
      }
    },
  };
}

/** Where the OpenTelemetry API (major version 1) keeps what an OpenTelemetry SDK registered. */
const OPEN_TELEMETRY_GLOBALS = Symbol.for("opentelemetry.js.api.1");

/**
 * Whether the SDK's OpenTelemetry spans can go anywhere: an OpenTelemetry SDK registered a tracer
 * provider in this process (through `NODE_OPTIONS=--import ...`, say), or the environment
 * configures the SDK's tracing itself (`ANTHROPIC_OPEN_TELEMETRY`). Otherwise every span is a
 * no-op, yet building one and its attributes cost ~0.07 ms per request.
 */
export function isTracingWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.ANTHROPIC_OPEN_TELEMETRY !== undefined) return true;
  const globals: unknown = (globalThis as Record<symbol, unknown>)[OPEN_TELEMETRY_GLOBALS];
  return typeof globals === "object" && globals !== null && "trace" in globals;
}

/** A reply stream that broke off: a dropped connection, or an error event such as overloaded_error. */
function isStreamBreak(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIError)
    return error.status === undefined || error.status === 429 || error.status >= 500;
  return error instanceof Error;
}

/** Waits, unless the signal aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Builds the request with prompt-cache breakpoints on the tools, the system prompt and the newest
 * message, so each turn re-reads the conversation so far from the cache.
 */
function toParams(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
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
      toParam(message, index === request.messages.length - 1),
    ),
    ...(tools.length > 0 ? { tools } : {}),
  };
}

function toParam(message: Message, isNewest: boolean): Anthropic.MessageParam {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
  if (!isNewest) return { role: message.role, content: blocks } as Anthropic.MessageParam;
  const last = blocks.length - 1;
  const content = blocks.map((block, index) =>
    index === last ? { ...block, cache_control: EPHEMERAL } : block,
  );
  return { role: message.role, content } as Anthropic.MessageParam;
}

/** Reports each failed attempt the SDK is about to retry. */
function retryReporter(maxRetries: number, options: CompleteOptions): Middleware {
  return async (request, next) => {
    const attempt = Number(request.headers.get("x-stainless-retry-count") ?? "0");
    const willRetry = attempt < maxRetries && !options.signal.aborted;
    const report = (notice: Omit<RetryNotice, "attempt" | "maxRetries">) =>
      options.onRetry?.({ attempt: attempt + 1, maxRetries, ...notice });
    let response: Response;
    try {
      response = await next(request);
    } catch (error) {
      if (willRetry && !options.signal.aborted) {
        report({
          status: null,
          delayMs: null,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      throw error;
    }
    if (willRetry && isRetryableStatus(response)) {
      report({
        status: response.status,
        delayMs: retryDelayMs(response.headers),
        error: response.statusText || `HTTP ${response.status}`,
      });
    }
    return response;
  };
}

function isRetryableStatus(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  return [408, 409, 429].includes(response.status) || response.status >= 500;
}

function retryDelayMs(headers: Headers): number | null {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (!Number.isNaN(ms)) return ms;
  const seconds = Number.parseFloat(headers.get("retry-after") ?? "");
  return Number.isNaN(seconds) ? null : seconds * 1_000;
}

/** Maps SDK failures onto `ModelError`; an abort is rethrown as the signal's reason. */
function toModelError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof APIUserAbortError) return signal.reason ?? error;
  if (error instanceof APIConnectionError) {
    return new ModelError(`could not reach the model API: ${error.message}`, {
      isRetryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    return new ModelError(describeApiError(error), {
      status: error.status ?? null,
      isRetryable: error.status === undefined || error.status === 429 || error.status >= 500,
      cause: error,
    });
  }
  if (error instanceof Error)
    return new ModelError(`model call failed: ${error.message}`, { cause: error });
  return new ModelError(`model call failed: ${String(error)}`);
}

function describeApiError(error: APIError): string {
  const hint =
    error.status === 401
      ? " (check ANTHROPIC_API_KEY)"
      : error.status === 404
        ? " (check the model name and ANTHROPIC_BASE_URL)"
        : "";
  return `model API error ${error.status ?? ""}: ${apiErrorMessage(error)}${hint}`
    .replace(/\s+/g, " ")
    .trim();
}

/** The API's own words from an error body (`{"error": {"type", "message"}}`), else the SDK's message. */
function apiErrorMessage(error: APIError): string {
  const body: unknown = error.error;
  if (typeof body === "object" && body !== null && "error" in body) {
    const inner: unknown = body.error;
    if (
      typeof inner === "object" &&
      inner !== null &&
      "message" in inner &&
      typeof inner.message === "string"
    ) {
      const type = "type" in inner && typeof inner.type === "string" ? ` (${inner.type})` : "";
      return `${inner.message}${type}`;
    }
  }
  return error.message;
}
