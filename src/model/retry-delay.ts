// How long the SDKs wait before they retry a failed request, so an `api_retry` line can say it.

/**
 * The SDKs' own wait before retry `attempt` (from 1) when the server names none: 0.5 s doubling,
 * at most 8 s. The SDKs take up to a quarter off it at random (jitter), so it is the longest wait.
 */
export function backoffMs(attempt: number): number {
  return Math.min(500 * 2 ** (attempt - 1), 8_000);
}

/**
 * The wait before retry `attempt` as the SDKs pick it: the server's `retry-after-ms`, else its
 * `retry-after` (seconds or a date), when within (0, 2^31) ms; else `backoffMs`.
 */
export function retryDelayMs(headers: Headers, attempt: number, now = Date.now()): number {
  const fits = (ms: number) => ms > 0 && ms <= 2 ** 31 - 1;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (fits(ms)) return ms;
  const after = headers.get("retry-after") ?? "";
  const seconds = Number.parseFloat(after);
  if (fits(seconds * 1_000)) return seconds * 1_000;
  const date = Date.parse(after) - now;
  return Number.isNaN(seconds) && fits(date) ? date : backoffMs(attempt);
}
