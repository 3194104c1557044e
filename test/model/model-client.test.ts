import { describe, expect, test } from "vitest";
import { backoffMs, retryDelayMs, usageOf } from "../../src/model/model-client.js";
import { toMessagesUsage } from "../../src/model/openai/chat-reply.js";
import { DEFAULT_PRICES, estimateCostUsd } from "../../src/model/pricing.js";

describe("token counts from a server, in both wire formats", () => {
  test.each([
    ["negative", -1e9],
    ["NaN", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
    ["a string", "12"],
    ["null", null],
  ])("a count that is %s counts as 0", (_name, bad) => {
    expect(usageOf({ input_tokens: 5, output_tokens: bad, cache_read_input_tokens: bad })).toEqual({
      inputTokens: 5,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
    expect(toMessagesUsage({ prompt_tokens: 5, completion_tokens: bad })).toMatchObject({
      input_tokens: 5,
      output_tokens: 0,
    });
  });

  test("an absurd count is capped at 2^53 - 1, so a cost stays a number, never null", () => {
    const usage = usageOf({ output_tokens: 1e308 });
    expect(usage.outputTokens).toBe(Number.MAX_SAFE_INTEGER);
    const cost = estimateCostUsd(DEFAULT_PRICES, "claude-opus-5", usage);
    expect(Number.isFinite(cost)).toBe(true);
    expect(toMessagesUsage({ completion_tokens: 1e308 })).toMatchObject({
      output_tokens: Number.MAX_SAFE_INTEGER,
    });
  });
});

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
