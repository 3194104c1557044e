import { HttpResponse } from "msw";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { runAgent } from "../../../src/agent/run-agent.js";
import { MAX_QUOTE_CHARS } from "../../../src/format.js";
import {
  INVALID_JSON_INPUT_KEY,
  ModelError,
  type ModelRequest,
  type RetryNotice,
  toModelReply,
} from "../../../src/model/model-client.js";
import { DEFAULT_OPENAI_COMPAT, type OpenAICompat } from "../../../src/model/openai/compat.js";
import { createOpenAIClient } from "../../../src/model/openai/openai-client.js";
import { REPLY_LIMITS, type ReplyLimits } from "../../../src/model/reply-limits.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import {
  brokenStream,
  callDelta,
  chunk,
  OPENAI_TEST_BASE_URL,
  sseResponse,
  textReply,
  toChunkSse,
  usageChunk,
  useOpenAIServer,
} from "../../helpers/openai-chunks.js";

const REQUEST: ModelRequest = {
  model: "gpt-test",
  system: "You are a coding agent.",
  maxOutputTokens: 1024,
  tools: [{ name: "bash", description: "Run", inputSchema: { properties: { command: {} } } }],
  messages: [{ role: "user", content: "Fix the tests." }],
};

function client(
  compat: Partial<OpenAICompat> = {},
  key: { apiKey?: string } = { apiKey: "sk-test" },
) {
  return createOpenAIClient({
    baseURL: OPENAI_TEST_BASE_URL,
    apiKey: key.apiKey,
    compat: { ...DEFAULT_OPENAI_COMPAT, ...compat },
    maxRetries: 0,
    provider: "openai",
    apiKeyEnv: "OPENAI_API_KEY",
    retryBaseDelayMs: 1,
  });
}

function complete(request: ModelRequest = REQUEST, compat: Partial<OpenAICompat> = {}) {
  return client(compat).complete(request, { signal: new AbortController().signal });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("createOpenAIClient: tool calls as servers stream them", () => {
  const api = useOpenAIServer();

  test("OpenAI's shape: ids on the first delta, arguments in pieces, parsed at the end", async () => {
    api.queue([
      chunk({ role: "assistant", content: "Looking." }),
      chunk(callDelta({ index: 0, id: "call_a", name: "bash", args: '{"comm' })),
      chunk(callDelta({ index: 0, args: 'and":"ls"}' })),
      chunk(callDelta({ index: 1, id: "call_b", name: "bash", args: '{"command":"pwd"}' })),
      chunk({}, "tool_calls"),
    ]);
    const result = await complete();
    expect(result.content).toEqual([
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "call_a", name: "bash", input: { command: "ls" } },
      { type: "tool_use", id: "call_b", name: "bash", input: { command: "pwd" } },
    ]);
    expect(result.stopReason).toBe("tool_use");
    // The transcript's copy replays to the same reply.
    expect(toModelReply(JSON.parse(JSON.stringify(result.message)))).toEqual(result);
    expect(result.message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "gpt-test",
      provider: "openai",
      wire: { finish_reason: "tool_calls" },
    });
  });

  test("ids a server numbers anew in each reply (call_0) stay unique over the client's replies", async () => {
    const reused = [
      chunk(callDelta({ index: 0, id: "call_0", name: "bash", args: '{"command":"ls"}' })),
      chunk({}, "tool_calls"),
    ];
    api.queue(reused, reused);
    const shared = client();
    const signal = new AbortController().signal;
    const first = await shared.complete(REQUEST, { signal });
    const second = await shared.complete(REQUEST, { signal });

    const idOf = (reply: typeof first) =>
      reply.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))[0];
    expect(idOf(first)).toBe("call_0");
    expect(idOf(second)).toMatch(/^call_0_1_[0-9a-f]{8}$/);
  });

  test("ids missing (vLLM): each call gets a made-up id", async () => {
    api.queue([
      chunk(callDelta({ index: 0, name: "bash", args: '{"command":"ls"}' })),
      chunk(callDelta({ index: 1, name: "bash", args: '{"command":"pwd"}' })),
      chunk({}, "tool_calls"),
    ]);
    const calls = (await complete()).content.filter((block) => block.type === "tool_use");
    expect(calls).toHaveLength(2);
    const ids = calls.map((call) => (call as { id: string }).id);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(2);
  });

  test("every parallel call on index 0, told apart by their ids", async () => {
    api.queue([
      chunk(callDelta({ index: 0, id: "call_a", name: "bash", args: '{"command":' })),
      chunk(callDelta({ index: 0, args: '"ls"}' })),
      chunk(callDelta({ index: 0, id: "call_b", name: "bash", args: '{"command":"pwd"}' })),
      chunk({}, "tool_calls"),
    ]);
    const result = await complete();
    expect(result.content).toEqual([
      { type: "tool_use", id: "call_a", name: "bash", input: { command: "ls" } },
      { type: "tool_use", id: "call_b", name: "bash", input: { command: "pwd" } },
    ]);
  });

  test("no index and no id (Ollama): one call, with an id made up", async () => {
    api.queue([chunk(callDelta({ name: "bash", args: '{"command":"ls"}' })), chunk({}, "stop")]);
    const result = await complete();
    expect(result.content).toEqual([
      {
        type: "tool_use",
        id: expect.stringMatching(/^call_/),
        name: "bash",
        input: { command: "ls" },
      },
    ]);
  });

  test("`stop` with calls present: the model called tools", async () => {
    api.queue([
      chunk(callDelta({ index: 0, id: "c1", name: "bash", args: "{}" })),
      chunk({}, "stop"),
    ]);
    expect((await complete()).stopReason).toBe("tool_use");
  });

  test("`length` is the cut-off (max_tokens), `content_filter` a refusal", async () => {
    api.queue(
      [chunk({ content: "half" }), chunk({}, "length")],
      [chunk({ content: "" }), chunk({}, "content_filter")],
    );
    expect((await complete()).stopReason).toBe("max_tokens");
    expect((await complete()).stopReason).toBe("refusal");
  });

  test("a server's id and name that the Messages API would reject are made safe", async () => {
    api.queue([
      chunk(callDelta({ index: 0, id: "call:1/äx", name: "bash", args: "{}" })),
      chunk({}, "tool_calls"),
    ]);
    const [call] = (await complete()).content;
    expect(call).toMatchObject({ type: "tool_use", name: "bash" });
    expect((call as { id: string }).id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  test("invalid JSON arguments are kept raw under the marker, never run as {}", async () => {
    api.queue([
      chunk(callDelta({ index: 0, id: "c1", name: "bash", args: '{"command": ls}' })),
      chunk({}, "tool_calls"),
    ]);
    const [call] = (await complete()).content;
    expect(call).toEqual({
      type: "tool_use",
      id: "c1",
      name: "bash",
      input: { [INVALID_JSON_INPUT_KEY]: '{"command": ls}' },
    });
  });
});

describe("createOpenAIClient: the loop answers invalid JSON arguments with an error", () => {
  const api = useOpenAIServer();

  test("the tool is not run, and the model is told the arguments were not JSON", async () => {
    let runs = 0;
    const echo = defineTool({
      name: "echo",
      description: "echoes",
      input: z.object({ text: z.string() }).strict(),
      run: async () => {
        runs += 1;
        return { content: "ran", isError: false };
      },
    });
    api.queue(
      [
        chunk(callDelta({ index: 0, id: "c1", name: "echo", args: "{text: hi" })),
        chunk({}, "tool_calls"),
      ],
      textReply("done"),
    );
    const result = await runAgent({
      model: client(),
      modelName: "gpt-test",
      system: "be helpful",
      prompt: "echo hi",
      tools: [echo],
      limits: { maxSteps: 5, maxTokens: 1_000_000, maxOutputTokens: 100 },
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: () => {},
    });
    expect(result).toMatchObject({ status: "completed", finalText: "done" });
    expect(runs).toBe(0);
    const messages = api.requests[1]?.messages as Array<Record<string, unknown>>;
    expect(messages.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "c1", function: { name: "echo", arguments: "{text: hi" } }],
    });
    expect(messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content:
        "error: echo: the arguments of this call were not valid JSON, so it was not run; send it again with the arguments as one JSON object",
    });
  });
});

describe("createOpenAIClient: reasoning", () => {
  const api = useOpenAIServer();

  test.each(["reasoning_content", "reasoning", "reasoning_text"])(
    "`%s` deltas become a reasoning block before the text",
    async (field) => {
      api.queue([chunk({ [field]: "Let me " }), chunk({ [field]: "think." }), ...textReply("Hi")]);
      expect((await complete()).content).toEqual([
        { type: "reasoning", text: "Let me think." },
        { type: "text", text: "Hi" },
      ]);
    },
  );

  test("an inline <think> at the start of the content is split off", async () => {
    api.queue([
      chunk({ content: "<thi" }),
      chunk({ content: "nk>plan</think>\n\nAnswer" }),
      chunk({}, "stop"),
    ]);
    expect((await complete()).content).toEqual([
      { type: "reasoning", text: "plan" },
      { type: "text", text: "Answer" },
    ]);
  });

  test("DeepSeek send-back: the second request carries reasoning_content on the tool turn", async () => {
    const deepseek = { reasoningSendBack: true };
    api.queue([
      chunk({ reasoning_content: "I should list files." }),
      chunk(callDelta({ index: 0, id: "c1", name: "bash", args: '{"command":"ls"}' })),
      chunk({}, "tool_calls"),
    ]);
    const first = await complete(REQUEST, deepseek);
    let sentBack: unknown;
    api.queue((body) => {
      const messages = body.messages as Array<Record<string, unknown>>;
      sentBack = messages.find((m) => m.role === "assistant")?.reasoning_content;
      // DeepSeek's thinking mode answers 400 when the reasoning is missing.
      return sentBack === "I should list files."
        ? sseResponse(toChunkSse(textReply("done")))
        : HttpResponse.json({ error: { message: "missing reasoning_content" } }, { status: 400 });
    });
    const second = await complete(
      {
        ...REQUEST,
        messages: [
          ...REQUEST.messages,
          { role: "assistant", content: first.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "a.txt" }] },
        ],
      },
      deepseek,
    );
    expect(sentBack).toBe("I should list files.");
    expect(second.content).toEqual([{ type: "text", text: "done" }]);
  });
});

describe("createOpenAIClient: usage", () => {
  const api = useOpenAIServer();

  test("include_usage: cached tokens out of the input, reasoning tokens not added twice", async () => {
    api.queue([
      ...textReply("Hi"),
      usageChunk({
        prompt_tokens: 1000,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 800 },
        completion_tokens_details: { reasoning_tokens: 250 },
      }),
    ]);
    const result = await complete();
    expect(api.requests[0]?.stream_options).toEqual({ include_usage: true });
    expect(result.usage).toEqual({
      inputTokens: 200,
      outputTokens: 300,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 800,
    });
  });

  test("without include_usage: no stream_options sent, and usage estimated from characters", async () => {
    api.queue(textReply("x".repeat(400)));
    const result = await complete(REQUEST, { streamUsage: false });
    const sentChars = JSON.stringify(api.requests[0]).length - '"stream":true,'.length;
    expect(api.requests[0]).not.toHaveProperty("stream_options");
    expect(result.usage).toEqual({
      inputTokens: Math.ceil(sentChars / 4),
      outputTokens: 100,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
    expect(result.message.wire).toEqual({
      finish_reason: "stop",
      usage: null,
      usage_estimated: true,
    });
  });

  test("DeepSeek's prompt_cache_hit_tokens are cache reads", async () => {
    api.queue([
      ...textReply("Hi"),
      usageChunk({
        prompt_tokens: 500,
        completion_tokens: 20,
        prompt_cache_hit_tokens: 450,
        prompt_cache_miss_tokens: 50,
      }),
    ]);
    expect((await complete()).usage).toMatchObject({ inputTokens: 50, cacheReadInputTokens: 450 });
  });

  test("OpenRouter's cost is kept in the raw usage on the message", async () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5, cost: 0.00042 };
    api.queue([...textReply("Hi"), usageChunk(usage)]);
    const result = await complete();
    expect(result.message.wire).toEqual({ finish_reason: "stop", usage });
  });
});

describe("createOpenAIClient: broken streams and errors", () => {
  const api = useOpenAIServer();

  test("a stream with no finish reason is a retryable ModelError", async () => {
    api.queue([chunk({ content: "Hel" }), chunk({ content: "lo" })]);
    const error = await failure(complete());
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ isRetryable: true, category: "server_error" });
    expect((error as Error).message).toMatch(/without a finish reason/);
  });

  test("a broken stream is retried (reported through onRetry), then succeeds", async () => {
    api.queue(brokenStream(toChunkSse([chunk({ content: "Hel" })], false)), textReply("Hello"));
    const notices: RetryNotice[] = [];
    const retrying = createOpenAIClient({
      baseURL: OPENAI_TEST_BASE_URL,
      apiKey: "sk-test",
      compat: DEFAULT_OPENAI_COMPAT,
      maxRetries: 1,
      provider: "openai",
      apiKeyEnv: "OPENAI_API_KEY",
      retryBaseDelayMs: 1,
    });
    const result = await retrying.complete(REQUEST, {
      signal: new AbortController().signal,
      onRetry: (notice) => notices.push(notice),
    });
    expect(result.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(notices).toEqual([
      expect.objectContaining({
        attempt: 1,
        maxRetries: 1,
        error: expect.stringMatching(/^stream interrupted/),
      }),
    ]);
  });

  test("an error mid-stream ends the call with the server's words", async () => {
    api.queue([
      chunk({ content: "Hel" }),
      { error: { message: "upstream overloaded", type: "server_error" } },
    ]);
    const error = await failure(complete());
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toMatch(/upstream overloaded/);
    expect(error).toMatchObject({ isRetryable: true });
  });

  test("vLLM's error body is kept in the message, clipped", async () => {
    const message = `This model's maximum context length is 4096 tokens. ${"x".repeat(5000)}`;
    api.queue(
      HttpResponse.json(
        { object: "error", message, type: "BadRequestError", code: 400 },
        { status: 400 },
      ),
    );
    const error = await failure(complete());
    expect(error).toMatchObject({ status: 400, category: "invalid_request", isRetryable: false });
    expect((error as Error).message).toMatch(
      /^model API error 400: .*maximum context length is 4096/,
    );
    expect((error as Error).message.length).toBeLessThan(MAX_QUOTE_CHARS + 200);
  });

  test("a 401 names the key's variable", async () => {
    api.queue(HttpResponse.json({ error: { message: "Incorrect API key" } }, { status: 401 }));
    const error = await failure(complete());
    expect(error).toMatchObject({ category: "authentication" });
    expect((error as Error).message).toMatch(/Incorrect API key.*\(check OPENAI_API_KEY\)/);
  });

  test("with no key, no Authorization header is sent (and OPENAI_API_KEY is never read)", async () => {
    process.env.OPENAI_API_KEY = "sk-from-env";
    process.env.OPENAI_CUSTOM_HEADERS = "X-Leak: secret";
    try {
      api.queue(textReply("Hi"), textReply("Hi"));
      await client({}, {}).complete(REQUEST, { signal: new AbortController().signal });
      await client({}, { apiKey: "sk-given" }).complete(REQUEST, {
        signal: new AbortController().signal,
      });
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_CUSTOM_HEADERS;
    }
    expect(api.headers[0]?.get("authorization")).toBeNull();
    expect(api.headers[1]?.get("authorization")).toBe("Bearer sk-given");
    expect(api.headers.map((h) => h.get("x-leak"))).toEqual([null, null]);
  });
});

describe("createOpenAIClient: hostile replies", () => {
  const api = useOpenAIServer();
  const small = (limits: Partial<ReplyLimits>) =>
    createOpenAIClient({
      baseURL: OPENAI_TEST_BASE_URL,
      apiKey: "sk-test",
      compat: DEFAULT_OPENAI_COMPAT,
      maxRetries: 0,
      provider: "openai",
      apiKeyEnv: "OPENAI_API_KEY",
      replyLimits: { ...REPLY_LIMITS, ...limits },
    }).complete(REQUEST, { signal: new AbortController().signal });

  test("a 200 that is not an event stream says to check the base URL, without a retry", async () => {
    api.queue(HttpResponse.html("<html>login</html>"));
    const error = await failure(complete());
    expect(error).toMatchObject({ category: "invalid_request", isRetryable: false });
    expect((error as Error).message).toBe(
      `the model API answered 200 with text/html, not an event stream (check the base URL ${OPENAI_TEST_BASE_URL})`,
    );
  });

  test("data that is not JSON, a chunk that is not an object: malformed", async () => {
    api.queue(sseResponse("data: {not json\n\n"), sseResponse("data: [1,2]\n\n"));
    for (const expected of [/not JSON/, /not a JSON object/]) {
      const error = await failure(complete());
      expect(error).toMatchObject({ category: "server_error", isRetryable: true });
      expect((error as Error).message).toMatch(expected);
    }
  });

  test("arguments past maxBlockChars, calls past maxBlocks, a body past maxResponseBytes", async () => {
    api.queue(
      [
        chunk(callDelta({ index: 0, id: "a", name: "bash", args: "x".repeat(200) })),
        chunk({}, "stop"),
      ],
      [
        chunk(callDelta({ index: 0, id: "a", name: "bash", args: "{}" })),
        chunk(callDelta({ index: 1, id: "b", name: "bash", args: "{}" })),
        chunk({}, "stop"),
      ],
      textReply("y".repeat(5_000)),
      textReply("z".repeat(5_000)),
    );
    expect(String(await failure(small({ maxBlockChars: 100 })))).toMatch(
      /longer than 100 characters/,
    );
    expect(String(await failure(small({ maxBlocks: 1 })))).toMatch(/more than 1 tool calls/);
    expect(String(await failure(small({ maxResponseBytes: 1_000 })))).toMatch(/over 1000 bytes/);
    expect(String(await failure(small({ maxLineBytes: 500 })))).toMatch(
      /a line of the reply is over 500 bytes/,
    );
  });

  test("long ids, model names, finish reasons are clipped; a huge usage object is malformed", async () => {
    const long = "z".repeat(10_000);
    api.queue(
      [{ ...chunk({ content: "hi" }), id: long, model: long }, chunk({}, long)],
      [...textReply("hi"), usageChunk({ prompt_tokens: 1, junk: long })],
    );
    const { message } = await complete();
    for (const value of [
      message.id,
      message.model,
      (message.wire as { finish_reason: string }).finish_reason,
    ]) {
      expect(value.length).toBeLessThan(300);
    }
    expect(String(await failure(complete()))).toMatch(/usage object is longer than 10000/);
  });

  test("vLLM's error object inside a stream ends the call with its words", async () => {
    api.queue([chunk({ content: "Hel" }), { object: "error", message: "engine dead", code: 500 }]);
    const error = await failure(complete());
    expect(error).toMatchObject({ category: "server_error", isRetryable: true });
    expect((error as Error).message).toMatch(/the server sent an error: engine dead/);
  });

  test("Ollama's {error: string} 404 keeps its words and names the base URL", async () => {
    api.queue(HttpResponse.json({ error: 'model "qwen9" not found' }, { status: 404 }));
    const error = await failure(complete());
    expect((error as Error).message).toBe(
      `model API error 404: model "qwen9" not found (check the model name and the base URL ${OPENAI_TEST_BASE_URL})`,
    );
  });

  test("an abort mid-call rethrows the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("task timed out");
    api.queue(() => {
      controller.abort(reason);
      return sseResponse(toChunkSse(textReply("late")));
    });
    const error = await failure(client().complete(REQUEST, { signal: controller.signal }));
    expect(error).toBe(reason);
  });
});
