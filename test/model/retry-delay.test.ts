import { describe, expect, test } from "vitest";
import { backoffMs, retryDelayMs } from "../../src/model/retry-delay.js";

describe("the wait before a retry, as the SDKs pick it (an api_retry line's retry_delay_ms)", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  test.each([
    ["retry-after-ms", { "retry-after-ms": "250" }, 1, 250],
    ["retry-after in seconds", { "retry-after": "1.5" }, 1, 1500],
    ["retry-after as a date", { "retry-after": "Tue, 01 Dec 2026 12:00:03 GMT" }, 1, 3000],
    ["no header: the backoff of the first retry", {}, 1, 500],
    ["no header: the backoff doubles", {}, 3, 2000],
    ["no header: the backoff stops at 8 s", {}, 9, 8000],
    ["a zero wait, which the SDK replaces with its backoff", { "retry-after": "0" }, 2, 1000],
    ["a date in the past", { "retry-after": "Tue, 01 Dec 2026 11:00:00 GMT" }, 1, 500],
    ["a wait no timer can hold", { "retry-after-ms": String(2 ** 32) }, 1, 500],
  ])("%s", (_name, headers, attempt, expected) => {
    expect(retryDelayMs(new Headers(headers), attempt, now)).toBe(expected);
  });

  test("the backoff is the SDKs' 0.5 s doubling, at most 8 s", () => {
    expect([1, 2, 3, 4, 5, 6].map(backoffMs)).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });
});
