import { describe, expect, test } from "vitest";
import { effectiveCompat, PROVIDER_PRESETS, presetCompat } from "../../src/model/providers.js";

describe("presetCompat", () => {
  test("openai: max_completion_tokens for o-series and gpt-5, the developer role for o-series only", () => {
    expect(presetCompat("openai", "o3-mini")).toMatchObject({
      maxTokensField: "max_completion_tokens",
      developerRole: true,
    });
    expect(presetCompat("openai", "gpt-5-mini")).toMatchObject({
      maxTokensField: "max_completion_tokens",
      developerRole: false,
    });
    expect(presetCompat("openai", "gpt-4o")).toMatchObject({
      maxTokensField: "max_tokens",
      developerRole: false,
    });
  });

  test("deepseek: reasoning goes back for every model (V4 thinks by default); elsewhere only when set", () => {
    expect(presetCompat("deepseek", "deepseek-v4-flash").reasoningSendBack).toBe(true);
    expect(presetCompat("deepseek", "deepseek-v4-pro").reasoningSendBack).toBe(true);
    expect(presetCompat("vllm", "deepseek-ai/DeepSeek-V4-Flash").reasoningSendBack).toBe(false);
  });

  test("a task's settings override the preset's, field by field", () => {
    expect(effectiveCompat("openai", "o3", { streamUsage: false, developerRole: false })).toEqual({
      streamUsage: false,
      maxTokensField: "max_completion_tokens",
      developerRole: false,
      strictTools: false,
      sendToolChoice: false,
      reasoningSendBack: false,
    });
  });

  test("local servers need no key; the hosted presets name their variable", () => {
    expect(PROVIDER_PRESETS.ollama).toMatchObject({
      baseURL: "http://localhost:11434/v1",
      isKeyRequired: false,
    });
    expect(PROVIDER_PRESETS.vllm).toMatchObject({
      baseURL: "http://localhost:8000/v1",
      isKeyRequired: false,
    });
    expect(PROVIDER_PRESETS.deepseek.apiKeyEnv).toBe("DEEPSEEK_API_KEY");
    expect(PROVIDER_PRESETS.openrouter.apiKeyEnv).toBe("OPENROUTER_API_KEY");
    expect(PROVIDER_PRESETS.openai.apiKeyEnv).toBe("OPENAI_API_KEY");
  });
});
