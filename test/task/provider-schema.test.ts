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
      // Formats that look like names at first sight (a review found them passing).
      "esecret_8xv2ldqkk6d2kz4c1q5t2v1a8m",
      "tok_3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
      "ABCD_1234EFGH5678IJKL9012MNOP3456",
      "AKIAIOSFODNN7EXAMPLE",
      "a1b2c3d4e5f6g7h8i9",
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

  test("a key in the path or a key parameter in the query is refused, account ids are not", () => {
    expect(baseUrlProblem("https://gw.example/sk-live-ABC123/v1")).toMatch(/path holds .* API key/);
    expect(baseUrlProblem("https://gw.example/v1?api_key=abc")).toMatch(/query holds a key/);
    expect(
      baseUrlProblem(
        "https://gateway.ai.cloudflare.com/v1/0123456789abcdef0123456789abcdef/my-gw/openai",
      ),
    ).toBeUndefined();
  });
});
