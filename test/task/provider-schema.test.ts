import { describe, expect, test } from "vitest";
import { apiKeyEnvProblem, baseUrlProblem } from "../../src/task/provider-schema.js";

describe("apiKeyEnvProblem", () => {
  test("variable names pass, long upper-case ones included", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "deepseek_key",
      "_KEY",
      "MY_VERY_LONG_PROVIDER_API_KEY_FOR_STAGING",
      "TEAM2_LLM_KEY",
    ]) {
      expect(apiKeyEnvProblem(name), name).toBeUndefined();
    }
  });

  test("keys are refused: known prefixes, long random strings, characters no name has", () => {
    for (const value of [
      "sk-proj-abc",
      "sk_live_1",
      "gsk_0123",
      "AIzaSyD-example",
      "Xq7LmP2vR9tK4wZ8nB3cF6hJ1sD5gA0e",
      "0123456789abcdef0123456789abcdef",
      "key with spaces",
      "abc.def-ghi",
    ]) {
      const problem = apiKeyEnvProblem(value);
      expect(problem, value).toMatch(/never write a key in a task file/);
      expect(problem, value).not.toContain(value);
    }
  });
});

describe("baseUrlProblem", () => {
  test("http(s) URLs pass; other schemes, non-URLs and credentials in the URL do not", () => {
    expect(baseUrlProblem("http://localhost:8000/v1")).toBeUndefined();
    expect(baseUrlProblem("https://openrouter.ai/api/v1")).toBeUndefined();
    expect(baseUrlProblem("localhost:8000")).toMatch(/expected an http:\/\/ or https:\/\/ URL/);
    expect(baseUrlProblem("not a url")).toMatch(/expected a URL/);
    expect(baseUrlProblem("https://u:p@x.example")).toMatch(/user name or password/);
  });
});
