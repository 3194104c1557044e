import { describe, expect, test } from "vitest";
import { usageOf } from "../../src/model/model-client.js";
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
