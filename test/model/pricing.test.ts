import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import type { ApiMessage, Usage } from "../../src/model/model-client.js";
import {
  DEFAULT_PRICES,
  estimateCostUsd,
  findPrice,
  parsePriceFile,
  replyCostUsd,
} from "../../src/model/pricing.js";

const FREE = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

const USAGE: Usage = {
  inputTokens: 1_000,
  outputTokens: 2_000,
  cacheCreationInputTokens: 4_000,
  cacheReadInputTokens: 10_000,
};

function configError(act: () => unknown): ConfigError {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

describe("estimateCostUsd", () => {
  test("prices all four kinds of token (claude-sonnet-4-5: $3 / $15 / $3.75 / $0.30 per M)", () => {
    // 1k × $3 + 2k × $15 + 4k × $3.75 + 10k × $0.30, per million = $0.003 + $0.03 + $0.015 + $0.003
    expect(estimateCostUsd(DEFAULT_PRICES, "claude-sonnet-4-5", USAGE)).toBe(0.051);
  });

  test("a dated model id falls back to its undated price", () => {
    expect(estimateCostUsd(DEFAULT_PRICES, "claude-sonnet-4-5-20250929", USAGE)).toBe(0.051);
  });

  test("an exact dated entry wins over the fallback", () => {
    const prices = {
      ...DEFAULT_PRICES,
      "claude-sonnet-4-5-20250929": { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
    };

    // 1k × $1 + 2k × $5 + 4k × $1.25 + 10k × $0.10 = $0.001 + $0.01 + $0.005 + $0.001
    expect(estimateCostUsd(prices, "claude-sonnet-4-5-20250929", USAGE)).toBe(0.017);
  });

  test("an unknown model has no cost (null, not 0)", () => {
    expect(estimateCostUsd(DEFAULT_PRICES, "gpt-4o", USAGE)).toBeNull();
    expect(estimateCostUsd(DEFAULT_PRICES, "claude-sonnet-4-5-2025", USAGE)).toBeNull();
  });

  test("rounds to whole micro-dollars", () => {
    const usage: Usage = {
      ...USAGE,
      inputTokens: 0,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 7,
    };

    // 7 × $0.30 / M = $0.0000021 → $0.000002
    expect(estimateCostUsd(DEFAULT_PRICES, "claude-sonnet-4-5", usage)).toBe(0.000002);
  });
});

describe("parsePriceFile", () => {
  test("overrides a model and adds one, with cache prices defaulting to 1.25× and 0.1× input", () => {
    const text = JSON.stringify({
      "claude-sonnet-4-5": { input: 1, output: 2, cache_write: 3, cache_read: 4 },
      "my-model": { input: 2, output: 8 },
    });

    const prices = parsePriceFile(text, "prices.json");

    expect(findPrice(prices, "claude-sonnet-4-5")).toEqual({
      input: 1,
      output: 2,
      cacheWrite: 3,
      cacheRead: 4,
    });
    expect(findPrice(prices, "my-model")).toEqual({
      input: 2,
      output: 8,
      cacheWrite: 2.5,
      cacheRead: 0.2,
    });
    expect(findPrice(prices, "claude-opus-4-5")).toEqual(DEFAULT_PRICES["claude-opus-4-5"]);
    expect(DEFAULT_PRICES["claude-sonnet-4-5"]?.input).toBe(3);
  });

  test("a dated id of an added model finds it too, and costs by its prices", () => {
    const prices = parsePriceFile('{"my-model": {"input": 2, "output": 8}}', "prices.json");

    // 1k × $2 + 2k × $8 + 4k × $2.50 + 10k × $0.20 = $0.002 + $0.016 + $0.01 + $0.002
    expect(estimateCostUsd(prices, "my-model-20260101", USAGE)).toBe(0.03);
  });

  test("bad JSON is a ConfigError naming the file", () => {
    const error = configError(() => parsePriceFile("{ input: 3 }", "prices.json"));

    expect(error.message).toMatch(/^prices\.json: not valid JSON: /);
    expect(error.exitCode).toBe(2);
  });

  test.each([
    ["a negative price", { m: { input: -1, output: 1 } }, /^prices\.json: m\.input: /],
    ["a missing output price", { m: { input: 1 } }, /^prices\.json: m\.output: /],
    ["a price as a string", { m: { input: "3", output: 1 } }, /^prices\.json: m\.input: .*number/],
    ["an unknown field", { m: { input: 1, output: 1, cache: 2 } }, /^prices\.json: m: .*"cache"/],
    ["a list instead of an object", [1, 2], /^prices\.json: .*expected record/],
  ])("%s is a ConfigError naming the file and the field", (_name, json, message) => {
    const error = configError(() => parsePriceFile(JSON.stringify(json), "prices.json"));

    expect(error.message).toMatch(message);
    expect(error.message).toContain('expected {"<model>": {"input": 3');
  });
});

describe("prices by provider", () => {
  const table = parsePriceFile(
    JSON.stringify({
      "deepseek/deepseek-chat": { input: 0.28, output: 0.42, cache_read: 0.028 },
      "gpt-4o": { input: 2.5, output: 10 },
      "ollama/big-local": { input: 1, output: 1 },
    }),
    "prices.json",
  );

  test("a provider's own key wins; a bare model id stands for any provider", () => {
    expect(findPrice(table, { provider: "deepseek", model: "deepseek-chat" })?.input).toBe(0.28);
    expect(findPrice(table, { provider: "openrouter", model: "deepseek-chat" })).toBeUndefined();
    expect(findPrice(table, { provider: "openai", model: "gpt-4o-20250101" })?.output).toBe(10);
    expect(findPrice(table, { provider: "anthropic", model: "claude-sonnet-5-5" })?.input).toBe(2);
    expect(findPrice(table, "claude-sonnet-5-5")?.input).toBe(2);
  });

  test("a local server is free unless the file prices its model", () => {
    const usage = {
      inputTokens: 1e6,
      outputTokens: 1e6,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    };
    expect(estimateCostUsd(table, { provider: "ollama", model: "llama3" }, usage)).toBe(0);
    expect(estimateCostUsd(table, { provider: "vllm", model: "qwen" }, usage)).toBe(0);
    expect(estimateCostUsd(table, { provider: "ollama", model: "big-local" }, usage)).toBe(2);
    expect(
      estimateCostUsd(table, { provider: "openai-compatible", model: "llama3" }, usage),
    ).toBeNull();
  });
});

describe("the presets' models", () => {
  test("DeepSeek's V4 models have their list prices; the retired deepseek-chat has none", () => {
    const flash = { provider: "deepseek", model: "deepseek-v4-flash" };
    expect(findPrice(DEFAULT_PRICES, flash)).toEqual({
      input: 0.14,
      output: 0.28,
      cacheWrite: 0.14,
      cacheRead: 0.0028,
    });
    expect(findPrice(DEFAULT_PRICES, { provider: "deepseek", model: "deepseek-v4-pro" })).toEqual({
      input: 0.435,
      output: 0.87,
      cacheWrite: 0.435,
      cacheRead: 0.003625,
    });
    // 1k × $0.14 + 2k × $0.28 + 4k × $0.14 + 10k × $0.0028 = $0.00014 + $0.00056 + $0.00056 + $0.000028
    expect(estimateCostUsd(DEFAULT_PRICES, flash, USAGE)).toBe(0.001288);
    expect(findPrice(DEFAULT_PRICES, { provider: "deepseek", model: "deepseek-chat" })).toBe(
      undefined,
    );
    expect(findPrice(DEFAULT_PRICES, { provider: "deepseek", model: "deepseek-reasoner" })).toBe(
      undefined,
    );
  });

  test("OpenAI's models are priced on the openai preset, cache reads at the cached-input price", () => {
    const openai = (model: string) => findPrice(DEFAULT_PRICES, { provider: "openai", model });
    expect(openai("gpt-6.1-sol")).toEqual({
      input: 2,
      output: 10,
      cacheWrite: 2.5,
      cacheRead: 0.1,
    });
    expect(openai("gpt-6-sol")).toEqual({ input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 });
    expect(openai("gpt-6-luna")).toEqual({
      input: 0.1,
      output: 0.5,
      cacheWrite: 0.125,
      cacheRead: 0.01,
    });
    expect(openai("gpt-6-astra")).toMatchObject({ input: 10, output: 50, cacheRead: 1 });
    expect(openai("gpt-5.6-terra")).toMatchObject({ input: 2, output: 12, cacheRead: 0.2 });
    expect(openai("gpt-5.6-luna")).toMatchObject({ input: 0.2, output: 1.2, cacheRead: 0.02 });
    // A promotional price with no known end is no price.
    expect(openai("gpt-5.6-sol")).toBeUndefined();
  });

  test("a gateway's model named like another preset's key is not priced by it; its own key is", () => {
    const gateway = (model: string) => findPrice(DEFAULT_PRICES, { provider: "openrouter", model });
    expect(gateway("deepseek/deepseek-v4-flash")).toBeUndefined();
    expect(gateway("openai/gpt-6-sol")).toBeUndefined();
    expect(findPrice(DEFAULT_PRICES, { provider: "openai", model: "openai/gpt-6-sol" })).toEqual(
      DEFAULT_PRICES["openai/gpt-6-sol"],
    );
    // Anthropic's bare ids stand for any provider serving that name, a gateway included.
    expect(gateway("claude-sonnet-5-5")).toEqual(DEFAULT_PRICES["claude-sonnet-5-5"]);
    const table = parsePriceFile(
      JSON.stringify({
        "openrouter/deepseek/deepseek-v4-flash": { input: 0.5, output: 2 },
        "Qwen/Qwen3-Coder": { input: 0.1, output: 0.4 },
      }),
      "prices.json",
    );
    expect(
      findPrice(table, { provider: "openrouter", model: "deepseek/deepseek-v4-flash" })?.input,
    ).toBe(0.5);
    // A bare id with a slash that names no preset still stands for any provider.
    expect(
      findPrice(table, { provider: "openai-compatible", model: "Qwen/Qwen3-Coder" })?.output,
    ).toBe(0.4);
  });

  test("a prices file overrides a built-in preset entry", () => {
    const table = parsePriceFile(
      JSON.stringify({
        "deepseek/deepseek-v4-flash": { input: 0.15, output: 0.6, cache_read: 0.003 },
      }),
      "prices.json",
    );

    expect(findPrice(table, { provider: "deepseek", model: "deepseek-v4-flash" })).toMatchObject({
      input: 0.15,
      output: 0.6,
      cacheRead: 0.003,
    });
    expect(findPrice(table, { provider: "openai", model: "gpt-6-sol" })).toEqual(
      DEFAULT_PRICES["openai/gpt-6-sol"],
    );
    expect(DEFAULT_PRICES["deepseek/deepseek-v4-flash"]?.input).toBe(0.14);
  });
});

describe("replyCostUsd", () => {
  /** An OpenAI-format reply as `toApiMessage` keeps it: the server's usage under `wire`. */
  const reply = (wireUsage: Record<string, unknown>) => {
    const message: ApiMessage = {
      id: "gen-1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      stop_reason: "end_turn",
      usage: {},
      wire: { finish_reason: "stop", usage: wireUsage },
    };
    return { message, usage: USAGE };
  };
  const flash = { provider: "deepseek", model: "deepseek-v4-flash" };
  /** DeepSeek's flash as OpenRouter serves it, priced like DeepSeek's own by a prices file. */
  const routed = { provider: "openrouter", model: "deepseek/deepseek-v4-flash" };
  const routedPrices = {
    ...DEFAULT_PRICES,
    "openrouter/deepseek/deepseek-v4-flash": DEFAULT_PRICES["deepseek/deepseek-v4-flash"] ?? FREE,
  };

  test("the server's reported cost (OpenRouter's usage.cost) wins over the table, priced or not", () => {
    expect(replyCostUsd(routedPrices, routed, reply({ cost: 0.0123 }))).toBe(0.0123);
    expect(replyCostUsd(routedPrices, routed, reply({ cost: 0 }))).toBe(0);
    const unpriced = { provider: "openrouter", model: "some/model" };
    expect(replyCostUsd(DEFAULT_PRICES, unpriced, reply({ cost: 0.5, prompt_tokens: 9 }))).toBe(
      0.5,
    );
    expect(replyCostUsd(DEFAULT_PRICES, unpriced, reply({ prompt_tokens: 9 }))).toBeNull();
  });

  test.each(["deepseek", "openai", "openai-compatible"])(
    "a cost reported on the %s preset is ignored: only OpenRouter reports one",
    (provider) => {
      const priced = { provider, model: "m" };
      const prices = {
        ...DEFAULT_PRICES,
        [`${provider}/m`]: DEFAULT_PRICES["deepseek/deepseek-v4-flash"] ?? FREE,
      };
      expect(replyCostUsd(prices, priced, reply({ cost: 0 }))).toBe(0.001288);
      expect(
        replyCostUsd(DEFAULT_PRICES, { provider, model: "unpriced" }, reply({ cost: 0 })),
      ).toBeNull();
    },
  );

  test.each([
    ["negative", -1],
    ["NaN", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
    ["a string", "0.01"],
    ["null", null],
    ["an object", { usd: 1 }],
  ])("a cost that is %s is ignored: the table's estimate stands", (_name, cost) => {
    expect(replyCostUsd(routedPrices, routed, reply({ cost }))).toBe(0.001288);
  });

  test("a BYOK reply (is_byok) costs OpenRouter's fee plus the upstream charge", () => {
    const byok = (cost: unknown, upstream: unknown) =>
      reply({ cost, is_byok: true, cost_details: { upstream_inference_cost: upstream } });
    expect(replyCostUsd(routedPrices, routed, byok(0, 0.02))).toBe(0.02);
    expect(replyCostUsd(routedPrices, routed, byok(0.001, 0.02))).toBe(0.021);
    expect(replyCostUsd(routedPrices, routed, reply({ cost: 0.001, is_byok: false }))).toBe(0.001);
  });

  test.each([
    ["missing", undefined],
    ["negative", -0.02],
    ["NaN", Number.NaN],
    ["a string", "0.02"],
    ["absurd", 1e300],
  ])(
    "a BYOK reply whose upstream charge is %s is estimated, never under-counted",
    (_name, upstream) => {
      const usage = { cost: 0, is_byok: true, cost_details: { upstream_inference_cost: upstream } };
      expect(replyCostUsd(routedPrices, routed, reply(usage))).toBe(0.001288);
      expect(replyCostUsd(routedPrices, routed, reply({ cost: 0, is_byok: true }))).toBe(0.001288);
    },
  );

  test("a reported cost over $1,000,000 for one reply is nonsense: the estimate stands", () => {
    expect(replyCostUsd(routedPrices, routed, reply({ cost: 1e6 }))).toBe(1e6);
    expect(replyCostUsd(routedPrices, routed, reply({ cost: 1e300 }))).toBe(0.001288);
    const unpriced = { provider: "openrouter", model: "some/model" };
    expect(replyCostUsd(DEFAULT_PRICES, unpriced, reply({ cost: 1.5e6 }))).toBeNull();
  });

  test("the estimate is not rounded per reply (a run rounds its total): estimateCostUsd's is", () => {
    const oneCacheRead = {
      ...USAGE,
      inputTokens: 0,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 1,
    };
    const { message } = reply({});
    expect(replyCostUsd(DEFAULT_PRICES, flash, { message, usage: oneCacheRead })).toBeCloseTo(
      2.8e-9,
      15,
    );
    expect(estimateCostUsd(DEFAULT_PRICES, flash, oneCacheRead)).toBe(0);
  });

  test("a message with no wire usage (the Anthropic client's) is estimated", () => {
    const { message } = reply({});
    const { wire: _, ...anthropic } = message;
    expect(replyCostUsd(DEFAULT_PRICES, flash, { message: anthropic, usage: USAGE })).toBe(
      0.001288,
    );
    const odd = { ...anthropic, wire: "cost" };
    expect(replyCostUsd(DEFAULT_PRICES, flash, { message: odd, usage: USAGE })).toBe(0.001288);
  });
});

test("the prices file README shows parses, and prices what it says", async () => {
  const { readFile } = await import("node:fs/promises");
  const readme = await readFile("README.md", "utf8");
  const after = readme.slice(readme.indexOf("Its\nentries are merged over the built-in table:"));
  const json = /```json\n([\s\S]*?)```/.exec(after)?.[1] ?? "";
  const table = parsePriceFile(json, "README.md");

  // DeepSeek's peak-hour price over the built-in list price.
  expect(findPrice(table, { provider: "deepseek", model: "deepseek-v4-pro" })?.output).toBe(1.74);
  expect(findPrice(table, "my-gateway-model")?.output).toBe(2);
});
