import { APIConnectionError, APIError, APIUserAbortError } from "openai/error";
import { messageOf } from "../../errors.js";
import { clip } from "../../format.js";
import { MalformedReplyError } from "../malformed-reply.js";
import { ModelError, type ModelErrorCategory } from "../model-client.js";

// How the openai SDK's failures are told apart (by status, as its error classes are), in the
// same categories as the Anthropic client's, so a run ends the same way on either.

/** What the hints need to name: the preset, the base URL and the key's variable. */
export type EndpointInfo = { provider: string; baseURL: string; apiKeyEnv: string | undefined };

/** Error types of an error sent inside a stream (no HTTP status), as categories. */
const STREAM_ERROR_TYPES: Readonly<Record<string, ModelErrorCategory>> = {
  rate_limit_error: "rate_limit",
  rate_limit_exceeded: "rate_limit",
  insufficient_quota: "rate_limit",
  overloaded_error: "overloaded",
  authentication_error: "authentication",
  invalid_request_error: "invalid_request",
  not_found_error: "not_found",
};

/** What kind of failure an SDK error is. */
export function categoryOf(error: unknown): ModelErrorCategory {
  if (error instanceof APIConnectionError) return "connection";
  if (!(error instanceof APIError)) return "unknown";
  const { status } = error;
  if (status === undefined) {
    const type = typeof error.type === "string" ? error.type : String(error.code ?? "");
    return STREAM_ERROR_TYPES[type] ?? "server_error";
  }
  if (status === 401 || status === 403) return "authentication";
  if (status === 404) return "not_found";
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status >= 500) return "server_error";
  if (status === 400 || status === 413 || status === 422) return "invalid_request";
  return "unknown";
}

/** Whether trying again may help: the kinds the SDK itself retries. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIError && (error.status === 408 || error.status === 409)) return true;
  const category = categoryOf(error);
  return ["rate_limit", "overloaded", "server_error", "connection"].includes(category);
}

/** A reply stream that broke off after it started; the SDK does not retry these, the client does. */
export function isStreamBreak(error: unknown): boolean {
  if (error instanceof APIUserAbortError) return false;
  if (error instanceof APIError) return isRetryable(error);
  return error instanceof Error;
}

/** Maps SDK failures onto `ModelError`, with hints naming the endpoint; an abort is rethrown. */
export function toModelError(error: unknown, signal: AbortSignal, endpoint: EndpointInfo): unknown {
  if (signal.aborted || error instanceof APIUserAbortError) return signal.reason ?? error;
  if (error instanceof ModelError) return error;
  if (error instanceof MalformedReplyError) return error.toModelError();
  const category = categoryOf(error);
  const isRetryableError = isRetryable(error);
  if (error instanceof APIConnectionError) {
    const cause = error.cause === undefined ? error.message : causeChain(error.cause);
    return new ModelError(`could not reach the model API at ${endpoint.baseURL}: ${cause}`, {
      category,
      isRetryable: isRetryableError,
      cause: error,
    });
  }
  if (error instanceof APIError) {
    const words = `model API error ${error.status ?? ""}: ${clip(apiWords(error))}${hintFor(category, endpoint)}`;
    return new ModelError(words.replace(/\s+/g, " ").trim(), {
      status: error.status ?? null,
      category,
      isRetryable: isRetryableError,
      cause: error,
    });
  }
  return new ModelError(`model call failed: ${clip(messageOf(error))}`, {
    // A stream that broke off (or never said how it ended) is the server's trouble.
    category: "server_error",
    isRetryable: true,
    cause: error,
  });
}

/** The server's own words from the error body, else the SDK's message (which leads with the status). */
function apiWords(error: APIError): string {
  const body: unknown = error.error;
  const isWords =
    typeof body === "object" &&
    body !== null &&
    "message" in body &&
    typeof body.message === "string";
  return isWords && body.message !== "" ? String(body.message) : error.message;
}

/**
 * A 200 whose body is not an event stream (an HTML page, a JSON body from a server that ignores
 * `stream`) is most likely the wrong base URL: a ModelError saying so, not a retry.
 */
export function notAnEventStream(response: Response, baseURL: string): ModelError | undefined {
  const type = response.headers.get("content-type") ?? "";
  if (!/json|html/i.test(type)) return undefined;
  return new ModelError(
    `the model API answered ${response.status} with ${clip(type, 100)}, not an event stream (check the base URL ${baseURL})`,
    { status: response.status, category: "invalid_request" },
  );
}

function hintFor(category: ModelErrorCategory, endpoint: EndpointInfo): string {
  if (category === "authentication") {
    return endpoint.apiKeyEnv === undefined
      ? ` (the ${endpoint.provider} endpoint wants an API key: name its variable in provider.api_key_env)`
      : ` (check ${endpoint.apiKeyEnv})`;
  }
  if (category === "not_found")
    return ` (check the model name and the base URL ${endpoint.baseURL})`;
  return "";
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:9` from the nested causes. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  for (let current = error; current !== undefined && parts.length < 4; ) {
    parts.push(messageOf(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return clip(parts.join(": "));
}
