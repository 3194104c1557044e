import { describe, expect, test } from "vitest";
import { Budget } from "../../src/agent/budget.js";
import { type SpendLimits, worstCase } from "../../src/batch/worst-case.js";
import type { ApiMessage, ModelReply, Usage } from "../../src/model/model-client.js";
import { totalTokens } from "../../src/model/model-client.js";
import type { Price } from "../../src/model/pricing.js";
import { DEFAULT_LIMITS } from "../../src/task/schema.js";

const SONNET_5: Price = { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 };

const DEFAULTS: SpendLimits = {
  maxSteps: DEFAULT_LIMITS.maxSteps,
  maxTokens: DEFAULT_LIMITS.maxTokens,
  maxOutputTokens: DEFAULT_LIMITS.maxOutputTokens,
  maxContextTokens: DEFAULT_LIMITS.maxContextTokens,
  maxCostUsd: undefined,
};

describe("worstCase", () => {
  test("default limits: max_tokens plus one call, output tokens at the output price, the rest at the dearest other", () => {
    // One call: 150,000 + 8,192 = 158,192 tokens; 2,000,000 + 158,192 < 50 × 158,192.
    // Output: at most 50 × 8,192 = 409,600 at $10/M; the other 1,748,592 at $2.50/M (cache writes).
    expect(worstCase(DEFAULTS, SONNET_5)).toEqual({
      tokens: 2_158_192,
      usd: (409_600 * 10 + 1_748_592 * 2.5) / 1_000_000,
      boundBy: "max_tokens",
    });
  });

  test("few steps: max_steps calls of at most one call's tokens each", () => {
    const limits = { ...DEFAULTS, maxSteps: 5 };

    expect(worstCase(limits, SONNET_5)).toEqual({
      tokens: 5 * 158_192,
      usd: (5 * 8_192 * 10 + 5 * 150_000 * 2.5) / 1_000_000,
      boundBy: "max_steps",
    });
  });

  test("max_cost_usd: the cap plus the dearest call, when that is less than the token bound", () => {
    expect(worstCase({ ...DEFAULTS, maxCostUsd: 1 }, SONNET_5)).toEqual({
      tokens: 2_158_192,
      usd: 1 + (8_192 * 10 + 150_000 * 2.5) / 1_000_000,
      boundBy: "max_cost_usd",
    });
    // A cap above what the tokens can cost changes nothing.
    expect(worstCase({ ...DEFAULTS, maxCostUsd: 100 }, SONNET_5).boundBy).toBe("max_tokens");
  });

  test("a model without a price has an unknown worst case, not $0", () => {
    expect(worstCase({ ...DEFAULTS, maxCostUsd: 1 }, undefined)).toEqual({
      tokens: 2_158_192,
      usd: null,
      boundBy: "max_tokens",
    });
  });

  test("an output price below an input price: every token at the dearest price", () => {
    const price: Price = { input: 5, output: 1, cacheWrite: 4, cacheRead: 0.5 };

    expect(worstCase(DEFAULTS, price).usd).toBeCloseTo((2_158_192 * 5) / 1_000_000, 9);
  });
});

describe("worstCase against the loop's own Budget", () => {
  test("no run that keeps to the limits spends more, over 2,000 random limits, prices and replies", () => {
    const random = seeded(18);
    for (let trial = 0; trial < 2_000; trial += 1) {
      const limits = randomLimits(random);
      const price = randomPrice(random);
      const bound = worstCase(limits, price);

      const spent = spendUntilStopped(limits, price, () => randomUsage(limits, random));

      const where = JSON.stringify({ trial, limits, price, bound, spent });
      expect(spent.tokens, where).toBeLessThanOrEqual(bound.tokens);
      expect(spent.usd, where).toBeLessThanOrEqual((bound.usd ?? 0) * (1 + 1e-12) + 1e-12);
    }
  });

  test("the bound is close: 50 replies of 8,192 output and 31,808 cache-write tokens spend 95% of it", () => {
    const usage: Usage = {
      inputTokens: 0,
      outputTokens: 8_192,
      cacheCreationInputTokens: 31_808,
      cacheReadInputTokens: 0,
    };
    const spent = spendUntilStopped(DEFAULTS, SONNET_5, () => usage);

    expect(spent.tokens).toBe(2_000_000);
    expect(spent.usd / (worstCase(DEFAULTS, SONNET_5).usd ?? 0)).toBeGreaterThan(0.95);
  });
});

/**
 * Calls the model until `Budget` (the loop's accounting, subagents included) stops the run, with
 * the usage `nextUsage` gives each reply.
 */
function spendUntilStopped(
  limits: SpendLimits,
  price: Price,
  nextUsage: () => Usage,
): { tokens: number; usd: number } {
  const costOf = (reply: ModelReply) => costUsd(reply.usage, price);
  const budget = new Budget(limits, costOf);
  while (budget.beforeCall() === undefined) {
    const usage = nextUsage();
    const reply: ModelReply = {
      message: { role: "assistant", content: [] } as unknown as ApiMessage,
      content: [],
      stopReason: "tool_use",
      usage,
    };
    if (budget.afterReply(reply) !== undefined) break;
  }
  return { tokens: totalTokens(budget.usage), usd: budget.spentUsd ?? 0 };
}

function costUsd(usage: Usage, price: Price): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheCreationInputTokens * price.cacheWrite +
      usage.cacheReadInputTokens * price.cacheRead) /
    1_000_000
  );
}

/**
 * A reply's usage within the limits (at most `maxContextTokens` of input, of any kind, and
 * `maxOutputTokens` of output): often the largest, its input split at random among the kinds.
 */
function randomUsage(limits: SpendLimits, random: () => number): Usage {
  const input = Math.floor(limits.maxContextTokens * (random() < 0.5 ? 1 : random()));
  const output = Math.floor(limits.maxOutputTokens * (random() < 0.5 ? 1 : random()));
  const cacheWrite = Math.floor(input * random());
  const cacheRead = Math.floor((input - cacheWrite) * random());
  return {
    inputTokens: input - cacheWrite - cacheRead,
    outputTokens: output,
    cacheCreationInputTokens: cacheWrite,
    cacheReadInputTokens: cacheRead,
  };
}

function randomLimits(random: () => number): SpendLimits {
  const int = (max: number) => 1 + Math.floor(random() * max);
  return {
    maxSteps: int(60),
    maxTokens: int(3_000_000),
    maxOutputTokens: int(128_000),
    maxContextTokens: int(200_000),
    maxCostUsd: random() < 0.5 ? undefined : Math.round(random() * 5_000) / 100 + 0.01,
  };
}

function randomPrice(random: () => number): Price {
  const usd = () => Math.round(random() * 6_000) / 100;
  return { input: usd(), output: usd(), cacheWrite: usd(), cacheRead: usd() };
}

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
