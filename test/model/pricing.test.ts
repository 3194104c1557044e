import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import type { Usage } from "../../src/model/model-client.js";
import {
  DEFAULT_PRICES,
  estimateCostUsd,
  findPrice,
  parsePriceFile,
} from "../../src/model/pricing.js";

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

test("the prices file README shows parses, and prices what it says", async () => {
  const { readFile } = await import("node:fs/promises");
  const readme = await readFile("README.md", "utf8");
  const after = readme.slice(readme.indexOf("Its\nentries are merged over the built-in table:"));
  const json = /```json\n([\s\S]*?)```/.exec(after)?.[1] ?? "";
  const table = parsePriceFile(json, "README.md");

  expect(findPrice(table, { provider: "deepseek", model: "deepseek-chat" })?.cacheRead).toBe(0.028);
  expect(findPrice(table, "my-gateway-model")?.output).toBe(2);
});
