import { messageOf } from "../../errors.js";
import { clip } from "../../format.js";
import {
  errorMessageIn,
  isRecord,
  MAX_ERROR_BODY_BYTES,
  parseJson,
  readTextUpTo,
} from "../error-body.js";
import { limitBodyBytes } from "../limit-body-bytes.js";
import type { CompleteOptions, ModelErrorCategory, RetryNotice } from "../model-client.js";
import { backoffMs, retryDelayMs } from "../retry-delay.js";

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The `fetch` the SDK gets: it reports each failed attempt the SDK is about to retry through
 * `onRetry`, rewrites error bodies the SDK would drop into its `{"error": {...}}` shape, and
 * bounds every response body. The SDK retries exactly as it decides (`willSdkRetry` mirrors it).
 */
export function createChatFetch(
  maxRetries: number,
  bounds: { maxResponseBytes: number; maxLineBytes: number },
  options: CompleteOptions,
  fetchImpl: Fetch = fetch,
): Fetch {
  return async (input, init) => {
    const attempt = Number(new Headers(init?.headers).get("x-stainless-retry-count") ?? "0");
    const willRetry = () => attempt < maxRetries && !options.signal.aborted;
    const report = (notice: Omit<RetryNotice, "attempt" | "maxRetries">) =>
      options.onRetry?.({ attempt: attempt + 1, maxRetries, ...notice });
    let response: Response;
    try {
      response = await fetchImpl(input, init);
    } catch (error) {
      if (willRetry()) {
        report({
          status: null,
          category: "connection",
          delayMs: backoffMs(attempt + 1),
          error: clip(messageOf(error)),
        });
      }
      throw error;
    }
    if (response.ok) {
      return limitBodyBytes(response, bounds.maxResponseBytes, bounds.maxLineBytes);
    }
    const body = await readTextUpTo(response, MAX_ERROR_BODY_BYTES);
    if (willRetry() && willSdkRetry(response)) {
      report({
        status: response.status,
        category: retriedCategory(response.status),
        delayMs: retryDelayMs(response.headers, attempt + 1),
        error: clip(errorMessageIn(body) ?? response.statusText) || `HTTP ${response.status}`,
      });
    }
    const { status, statusText, headers } = response;
    return new Response(toSdkErrorBody(body), { status, statusText, headers });
  };
}

/** The openai SDK's own rule (`shouldRetry`): the server's `x-should-retry`, else the status. */
function willSdkRetry(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  const { status } = response;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The kind of failure a retried status is (408 and 409 are the server's trouble too). */
function retriedCategory(status: number): ModelErrorCategory {
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  return status >= 500 || status === 408 || status === 409 ? "server_error" : "unknown";
}

/**
 * An error body in the shape the SDK reads (`{"error": {"message", "type", "code"}}`). Servers
 * send others: vLLM `{"object":"error","message":...}`, Ollama `{"error":"..."}`, FastAPI
 * `{"detail":...}`, or an HTML page; the SDK keeps only the first shape's words.
 */
export function toSdkErrorBody(body: string): string {
  const json = parseJson(body);
  if (body.trim() === "" || (isRecord(json) && isRecord(json.error))) return body;
  const message = errorMessageIn(body) ?? clip(body.trim(), 2_000);
  const type = isRecord(json) && typeof json.type === "string" ? json.type : undefined;
  const code = isRecord(json) ? json.code : undefined;
  return JSON.stringify({ error: { message, type, code } });
}
