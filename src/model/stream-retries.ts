import { messageOf } from "../errors.js";
import { clip } from "../format.js";
import { sleep } from "./abortable-sleep.js";
import { MalformedReplyError } from "./malformed-reply.js";
import type { CompleteOptions, ModelErrorCategory } from "./model-client.js";

/** How one client retries a reply stream that broke after it started. */
export type StreamRetryPolicy = {
  maxRetries: number;
  baseDelayMs: number;
  /** Whether an error is a broken or malformed stream (worth another try). */
  isStreamBreak: (error: unknown) => boolean;
  /** What the call throws once it is not retried: a `ModelError`, or the abort's reason. */
  toModelError: (error: unknown) => unknown;
  /** What kind of failure broke the stream (an error event's type, a dropped connection). */
  categoryOf: (error: unknown) => ModelErrorCategory;
};

/**
 * Runs `attempt` until it returns, retrying it when its stream broke after it started (it calls
 * `started` once the reply began) or turned out malformed, with the SDK's budget and a doubling
 * delay (at most 8 s), each retry reported through `onRetry`: the one retry loop besides the
 * SDKs' own, which retry a request that fails before its reply starts.
 */
export async function withStreamRetries<T>(
  attempt: (started: () => void) => Promise<T>,
  policy: StreamRetryPolicy,
  options: CompleteOptions,
): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    let hasStarted = false;
    try {
      return await attempt(() => {
        hasStarted = true;
      });
    } catch (error) {
      const canRetry =
        hasStarted &&
        tries <= policy.maxRetries &&
        !options.signal.aborted &&
        policy.isStreamBreak(error);
      if (!canRetry) throw policy.toModelError(error);
      const delayMs = Math.min(policy.baseDelayMs * 2 ** (tries - 1), 8_000);
      options.onRetry?.({
        attempt: tries,
        maxRetries: policy.maxRetries,
        status: null,
        category: streamBreakCategory(error, policy),
        delayMs,
        error:
          error instanceof MalformedReplyError
            ? `malformed reply: ${error.message}`
            : `stream interrupted: ${clip(messageOf(error))}`,
      });
      await sleep(delayMs, options.signal);
    }
  }
}

/** A malformed reply is the server's fault; a break the client cannot name, a lost connection. */
function streamBreakCategory(error: unknown, policy: StreamRetryPolicy): ModelErrorCategory {
  if (error instanceof MalformedReplyError) return "server_error";
  const category = policy.categoryOf(error);
  return category === "unknown" ? "connection" : category;
}
