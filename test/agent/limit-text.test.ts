import { describe, expect, test } from "vitest";
import { describeLimit } from "../../src/agent/limit-text.js";

describe("describeLimit", () => {
  test("each limit kind carries its units, thousands separators and the setting to raise", () => {
    const texts = [
      describeLimit({ limit: "max_steps", used: 1_200, max: 1_200 }),
      describeLimit({ limit: "max_tokens", used: 12_345, max: 10_000 }),
      describeLimit({ limit: "max_cost", used: 0.603, max: 0.5 }),
      describeLimit({ limit: "max_cost", used: 1_234.5, max: 1_000 }),
      describeLimit({ limit: "timeout", used: 2_000, max: 2_000 }),
      describeLimit({ limit: "timeout", used: 3_600_040, max: 3_600_000 }),
      describeLimit({ limit: "budget", used: 1.2, max: 1, unit: "usd" }),
      describeLimit({ limit: "budget", used: 23_192, max: 20_000, unit: "tokens" }),
      describeLimit({ limit: "loop", used: 3, max: 3 }),
    ];

    expect(texts).toEqual([
      "max_steps reached (1,200 of 1,200 steps); raise limits.max_steps or --max-steps",
      "max_tokens reached (12,345 of 10,000 tokens); raise limits.max_tokens or --max-tokens",
      "max_cost reached ($0.603 of $0.50); raise limits.max_cost_usd or --max-cost",
      "max_cost reached ($1,234.50 of $1,000.00); raise limits.max_cost_usd or --max-cost",
      "timeout reached (2.0 s of 2.0 s); raise limits.timeout or --timeout",
      "timeout reached (3,600.0 s of 3,600.0 s); raise limits.timeout or --timeout",
      "the batch budget is spent ($1.20 of $1.00); raise --budget-usd",
      "the batch budget is spent (23,192 of 20,000 tokens); raise --budget-tokens",
      "loop: the same tool call came 3 times in a row (limits.max_repeated_calls 3); change the task's prompt, or raise limits.max_repeated_calls",
    ]);
  });

  test("a spend just over the cap is never shown below it, and a cap finer than a cent keeps its digits", () => {
    const texts = [
      describeLimit({ limit: "max_cost", used: 0.5000004, max: 0.5 }),
      describeLimit({ limit: "max_cost", used: 0.1234562, max: 0.1234561 }),
      describeLimit({ limit: "max_cost", used: 0.00051, max: 0.0005 }),
      describeLimit({ limit: "max_cost", used: 1.0004, max: 1.0003 }),
    ];

    expect(texts).toEqual([
      "max_cost reached ($0.50 of $0.50); raise limits.max_cost_usd or --max-cost",
      "max_cost reached ($0.123457 of $0.123456); raise limits.max_cost_usd or --max-cost",
      "max_cost reached ($0.0005 of $0.0005); raise limits.max_cost_usd or --max-cost",
      "max_cost reached ($1.0004 of $1.0003); raise limits.max_cost_usd or --max-cost",
    ]);
  });

  test("a reply of unknown price names the way to give one", () => {
    expect(describeLimit({ limit: "max_cost", used: Number.NaN, max: 0.5 })).toBe(
      "max_cost reached: a reply's price is unknown, so spending against the $0.50 limit cannot be counted; add the model's price with --prices FILE, or drop limits.max_cost_usd",
    );
  });
});
