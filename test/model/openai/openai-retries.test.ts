import { describe, expect, test } from "vitest";
import {
  ModelError,
  type ModelRequest,
  type RetryNotice,
} from "../../../src/model/model-client.js";
import { DEFAULT_OPENAI_COMPAT } from "../../../src/model/openai/compat.js";
import { createOpenAIClient } from "../../../src/model/openai/openai-client.js";
import { textReply } from "../../helpers/openai-chunks.js";
import { startOpenAIHttpServer } from "../../helpers/openai-http-server.js";

// Retries go through the SDK's own loop, which msw's retry path hangs on Node 20: a real server.

const REQUEST: ModelRequest = {
  model: "gpt-test",
  system: "sys",
  maxOutputTokens: 100,
  tools: [],
  messages: [{ role: "user", content: "hi" }],
};

function call(baseURL: string, maxRetries: number, notices: RetryNotice[]) {
  const client = createOpenAIClient({
    baseURL,
    apiKey: undefined,
    compat: DEFAULT_OPENAI_COMPAT,
    maxRetries,
    provider: "vllm",
    apiKeyEnv: undefined,
  });
  return client.complete(REQUEST, {
    signal: new AbortController().signal,
    onRetry: (notice) => notices.push(notice),
  });
}

describe("createOpenAIClient retries, against a real server on 127.0.0.1", () => {
  test("a 429 and a dropped connection are retried by the SDK, each reported", async () => {
    await using server = await startOpenAIHttpServer();
    server.queue(
      {
        status: 429,
        body: { error: { message: "slow down" } },
        headers: { "retry-after-ms": "1" },
      },
      { reset: true },
      { chunks: textReply("hello") },
    );
    const notices: RetryNotice[] = [];
    const result = await call(server.baseURL, 2, notices);
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
    expect(notices).toEqual([
      {
        attempt: 1,
        maxRetries: 2,
        status: 429,
        category: "rate_limit",
        delayMs: 1,
        error: "slow down",
      },
      // No retry-after: the SDK's own backoff for the second retry, 1 s before its jitter.
      expect.objectContaining({
        attempt: 2,
        maxRetries: 2,
        status: null,
        category: "connection",
        delayMs: 1000,
      }),
    ]);
    expect(server.requests).toHaveLength(3);
  });

  test("out of retries, vLLM's 500 body is the error's message", async () => {
    await using server = await startOpenAIHttpServer();
    const body = {
      object: "error",
      message: "CUDA out of memory",
      type: "InternalServerError",
      code: 500,
    };
    server.queue(
      { status: 500, body, headers: { "retry-after-ms": "1" } },
      { status: 500, body, headers: { "retry-after-ms": "1" } },
    );
    const notices: RetryNotice[] = [];
    const error = await call(server.baseURL, 1, notices).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 500, category: "server_error", isRetryable: true });
    expect((error as Error).message).toBe("model API error 500: CUDA out of memory");
    expect(notices).toEqual([
      {
        attempt: 1,
        maxRetries: 1,
        status: 500,
        category: "server_error",
        delayMs: 1,
        error: "CUDA out of memory",
      },
    ]);
  });

  test("an unreachable endpoint names the URL and the system error", async () => {
    const server = await startOpenAIHttpServer();
    const { baseURL } = server;
    await server[Symbol.asyncDispose]();
    const error = await call(baseURL, 0, []).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ category: "connection", isRetryable: true });
    expect((error as Error).message).toMatch(
      new RegExp(`^could not reach the model API at ${baseURL}: .*ECONNREFUSED`),
    );
  });
});
