import type { Middleware } from "@anthropic-ai/sdk";
import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  UnprocessableEntityError,
} from "@anthropic-ai/sdk/error";
import { messageOf } from "../errors.js";
import { clip } from "../format.js";
import { type Endpoint, endpointHint, NotEventStreamError } from "./endpoint-hints.js";
import { errorMessageIn, MAX_ERROR_BODY_BYTES, readTextUpTo } from "./error-body.js";
import { MalformedReplyError } from "./malformed-reply.js";
import {
  type CompleteOptions,
  ModelError,
  type ModelErrorCategory,
  type RetryNotice,
} from "./model-client.js";
import { backoffMs, retryDelayMs } from "./retry-delay.js";

// How the Anthropic SDK's failures are told apart: by its own error classes, and for an error
// event inside a reply stream (no HTTP status), by the API's error type.

/** The error types of the Messages API's error events, as categories. */
const STREAM_ERROR_TYPES: Readonly<Record<string, ModelErrorCategory>> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limit",
  api_error: "server_error",
  timeout_error: "server_error",
  authentication_error: "authentication",
  permission_error: "authentication",
  not_found_error: "not_found",
  invalid_request_error: "invalid_request",
  billing_error: "invalid_request",
};

/** What kind of failure an SDK error is. */
export function categoryOf(error: unknown): ModelErrorCategory {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return "authentication";
  }
  if (error instanceof RateLimitError) return "rate_limit";
  if (error instanceof OverloadedError) return "overloaded";
  if (error instanceof InternalServerError) return "server_error";
  if (error instanceof APIConnectionError) return "connection";
  if (error instanceof NotFoundError) return "not_found";
  if (error instanceof BadRequestError || error instanceof UnprocessableEntityError) {
    return "invalid_request";
  }
  if (error instanceof APIError && error.status === undefined) {
    // An error event of a type not listed: most likely the server's trouble, worth a retry.
    return STREAM_ERROR_TYPES[apiErrorType(error) ?? ""] ?? "server_error";
  }
  return "unknown";
}

/** Whether trying again may help: the kinds the SDK itself retries. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof RequestTimeoutError || error instanceof ConflictError) return true;
  const category = categoryOf(error);
  return (
    category === "rate_limit" ||
    category === "overloaded" ||
    category === "server_error" ||
    category === "connection"
  );
}

/**
 * A reply stream that broke off after it started: a dropped connection, a stream cut short, or an
 * error event such as overloaded_error. The SDK does not retry these; the adapter does.
 */
export function isStreamBreak(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIError) return isRetryable(error);
  return error instanceof Error;
}

/** Reports each failed attempt the SDK is about to retry. */
export function retryReporter(maxRetries: number, options: CompleteOptions): Middleware {
  return async (request, next) => {
    const attempt = Number(request.headers.get("x-stainless-retry-count") ?? "0");
    const willRetry = () => attempt < maxRetries && !options.signal.aborted;
    const report = (notice: Omit<RetryNotice, "attempt" | "maxRetries">) =>
      options.onRetry?.({ attempt: attempt + 1, maxRetries, ...notice });
    let response: Response;
    try {
      response = await next(request);
    } catch (error) {
      if (willRetry()) {
        report({
          status: null,
          category: categoryOf(error),
          delayMs: backoffMs(attempt + 1),
          error: clip(messageOf(error)),
        });
      }
      throw error;
    }
    if (response.ok || !willRetry() || !isRetriedBySdk(response)) return response;
    // The server's own words ("Overloaded") for the record; the SDK gets the same bounded body.
    const body = await readTextUpTo(response, MAX_ERROR_BODY_BYTES);
    const { status, statusText, headers } = response;
    report({
      status,
      category: categoryOf(APIError.generate(status, undefined, undefined, headers)),
      delayMs: retryDelayMs(headers, attempt + 1),
      error: clip(errorMessageIn(body) ?? statusText) || `HTTP ${status}`,
    });
    return new Response(body, { status, statusText, headers });
  };
}

/** The SDK's own choice for a failed response: the server's `x-should-retry`, else its class. */
function isRetriedBySdk(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  return isRetryable(APIError.generate(response.status, undefined, undefined, response.headers));
}

/** Maps SDK failures onto `ModelError`, with hints naming `endpoint`'s settings; an abort is rethrown as the signal's reason. */
export function toModelError(error: unknown, signal: AbortSignal, endpoint: Endpoint): unknown {
  if (signal.aborted || error instanceof APIUserAbortError) return signal.reason ?? error;
  if (error instanceof NotEventStreamError) {
    const hint = endpointHint(endpoint, {
      kind: "not_event_stream",
      contentType: error.contentType,
    });
    return new ModelError(`the model API's reply is not an event stream${hint}`, {
      category: "invalid_request",
      cause: error,
    });
  }
  if (error instanceof MalformedReplyError) return error.toModelError();
  const category = categoryOf(error);
  const retryable = isRetryable(error);
  if (error instanceof APIConnectionError) {
    const hint = endpointHint(endpoint, { kind: "unreachable", cause: error });
    return new ModelError(`could not reach the model API: ${clip(error.message)}${hint}`, {
      category,
      isRetryable: retryable,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    return new ModelError(describeApiError(error, endpoint), {
      status: error.status ?? null,
      category,
      isRetryable: retryable,
      cause: error,
    });
  }
  // A stream that broke off (its retries used up) is the server's or the network's trouble.
  return new ModelError(`model call failed: ${clip(messageOf(error))}`, {
    isRetryable: isStreamBreak(error),
    cause: error,
  });
}

function describeApiError(error: APIError, endpoint: Endpoint): string {
  const hint =
    error.status === undefined
      ? ""
      : endpointHint(endpoint, { kind: "status", status: error.status });
  // The API's words are the server's input: a broken one may send megabytes.
  return `model API error ${error.status ?? ""}: ${clip(apiErrorMessage(error))}${hint}`
    .replace(/\s+/g, " ")
    .trim();
}

/** The API's error body (`{"error": {"type", "message"}}`), when it has that shape. */
function apiErrorBody(error: APIError): { type?: string; message?: string } | undefined {
  const body: unknown = error.error;
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const inner: unknown = body.error;
  if (typeof inner !== "object" || inner === null) return undefined;
  return {
    ...("type" in inner && typeof inner.type === "string" ? { type: inner.type } : {}),
    ...("message" in inner && typeof inner.message === "string" ? { message: inner.message } : {}),
  };
}

function apiErrorType(error: APIError): string | undefined {
  return apiErrorBody(error)?.type;
}

/** The API's own words from an error body, else the SDK's message. */
function apiErrorMessage(error: APIError): string {
  const body = apiErrorBody(error);
  if (body?.message === undefined) return error.message;
  return `${body.message}${body.type === undefined ? "" : ` (${body.type})`}`;
}
