import { delay, HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { createAnthropicModel } from "../../src/model/anthropic.js";
import {
  type AssistantBlock,
  type Message,
  ModelError,
  type ModelRequest,
  type RetryNotice,
} from "../../src/model/model-client.js";
import { REPLY_LIMITS, type ReplyLimits } from "../../src/model/reply-limits.js";
import {
  blockAtIndex,
  deltaForMissingBlock,
  garbageLines,
  giantText,
  manyBlocks,
} from "../helpers/hostile-replies.js";
import { MOCKED_MESSAGES_URL, useModelServer } from "../helpers/model-server.js";
import { httpError, reply, toSse } from "../helpers/replies.js";

const EPHEMERAL = { type: "ephemeral" };

/** A second turn: the first prompt, the model's two tool calls, and their two results. */
const REQUEST: ModelRequest = {
  model: "claude-sonnet-5-5",
  system: "You are a coding agent.",
  maxOutputTokens: 1024,
  tools: [
    { name: "bash", description: "Run a command", inputSchema: { properties: { command: {} } } },
    { name: "read_file", description: "Read a file", inputSchema: { properties: { path: {} } } },
  ],
  messages: [
    { role: "user", content: "Fix the tests." },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_a", name: "bash", input: { command: "ls" } },
        { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "a.txt" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "a.txt" },
        { type: "tool_result", tool_use_id: "toolu_b", content: "x", is_error: true },
      ],
    },
  ],
};

function testModel() {
  return createAnthropicModel({ apiKey: "sk-test", maxRetries: 0 });
}

function complete(signal = new AbortController().signal) {
  return testModel().complete(REQUEST, { signal });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("createAnthropicModel against the msw model server", () => {
  const api = useModelServer();

  test("a streamed reply with text and two tool calls comes back normalised", async () => {
    const message = reply()
      .text("I'll look at both.")
      .toolUse("bash", { command: "npm test" }, "toolu_1")
      .toolUse("read_file", { path: "src/math.js" }, "toolu_2")
      .usage(120, 40, 30, 500)
      .build();
    api.queue(message);

    const result = await complete();

    expect(result).toEqual({
      content: [
        { type: "text", text: "I'll look at both." },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "npm test" } },
        { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "src/math.js" } },
      ],
      stopReason: "tool_use",
      usage: {
        inputTokens: 120,
        outputTokens: 40,
        cacheCreationInputTokens: 30,
        cacheReadInputTokens: 500,
      },
      // Every field the API sent, unchanged. (The SDK adds `parsed_output: null` on top.)
      message: expect.objectContaining(message),
    });
    expect(api.remaining()).toBe(0);
  });

  test("the request streams, and marks cache breakpoints on system, last tool and newest block only", async () => {
    api.queue(reply().text("ok"));

    await complete();

    expect(api.requests).toHaveLength(1);
    const body = api.requests[0];
    expect(body).toMatchObject({ model: "claude-sonnet-5-5", max_tokens: 1024, stream: true });
    expect(body?.system).toEqual([
      { type: "text", text: "You are a coding agent.", cache_control: EPHEMERAL },
    ]);
    expect(body?.tools).toEqual([
      {
        name: "bash",
        description: "Run a command",
        input_schema: { type: "object", properties: { command: {} } },
      },
      {
        name: "read_file",
        description: "Read a file",
        input_schema: { type: "object", properties: { path: {} } },
        cache_control: EPHEMERAL,
      },
    ]);
    expect(body?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Fix the tests." }] },
      { role: "assistant", content: REQUEST.messages[1]?.content },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "a.txt" },
          {
            type: "tool_result",
            tool_use_id: "toolu_b",
            content: "x",
            is_error: true,
            cache_control: EPHEMERAL,
          },
        ],
      },
    ]);
  });

  test("stop sequences are sent as stop_sequences, and only when the request has some", async () => {
    api.queue(reply().text("ok"));
    api.queue(reply().text("ok"));
    const signal = new AbortController().signal;

    await testModel().complete({ ...REQUEST, stopSequences: ["\ntool_result("] }, { signal });
    await testModel().complete(REQUEST, { signal });

    expect(api.requests[0]?.stop_sequences).toEqual(["\ntool_result("]);
    expect(api.requests[1]).not.toHaveProperty("stop_sequences");
  });

  test("another provider's reasoning blocks (a fork of an OpenAI-format run) are not sent", async () => {
    api.queue(reply().text("ok").build());
    const [first, second, third] = REQUEST.messages;
    const withReasoning: ModelRequest = {
      ...REQUEST,
      messages: [
        first as Message,
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "plan" },
            ...((second?.content ?? []) as AssistantBlock[]),
          ],
        },
        third as Message,
      ],
    };
    await testModel().complete(withReasoning, { signal: new AbortController().signal });
    const sent = api.requests[0]?.messages as Array<{ content: Array<{ type: string }> }>;
    expect(sent[1]?.content.map((block) => block.type)).toEqual(["text", "tool_use", "tool_use"]);
  });

  test("a 401 is a ModelError with status 401 that points at ANTHROPIC_API_KEY", async () => {
    api.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }),
    );

    const error = await failure(complete());

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 401, isRetryable: false });
    expect((error as ModelError).message).toMatch(/invalid x-api-key.*ANTHROPIC_API_KEY/);
  });

  test("a 404 is a ModelError that points at the model name", async () => {
    api.queue(
      httpError(404, {
        type: "error",
        error: { type: "not_found_error", message: "model: claude-nope" },
      }),
    );

    const error = await failure(complete());

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 404 });
    expect((error as ModelError).message).toMatch(/model: claude-nope.*check the model name/);
  });

  test("a 400 is a ModelError with the API's message and no hint", async () => {
    api.queue(
      httpError(400, {
        type: "error",
        error: { type: "invalid_request_error", message: "max_tokens: too large" },
      }),
    );

    const error = await failure(complete());

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 400, isRetryable: false });
    expect((error as ModelError).message).toContain("max_tokens: too large");
    expect((error as ModelError).message).not.toMatch(/check|ANTHROPIC_API_KEY/);
  });
});

describe("createAnthropicModel on a malformed or oversize reply", () => {
  const api = useModelServer();
  /** What the SDK logged to console.error (data that is not JSON), kept off the test output. */
  let logged: string[] = [];
  beforeEach(() => {
    logged = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  });
  afterEach(() => vi.restoreAllMocks());

  function hostileModel(limits: Partial<ReplyLimits> = {}, maxRetries = 0) {
    return createAnthropicModel({
      apiKey: "sk-test",
      maxRetries,
      retryBaseDelayMs: 1,
      replyLimits: { ...REPLY_LIMITS, ...limits },
    });
  }

  test.each([
    [
      "a block at index 200,000,000",
      blockAtIndex(200_000_000),
      /content_block_start for block 200000000, but the next block is 0/,
    ],
    [
      "a delta for a block never started",
      deltaForMissingBlock(),
      /content_block_delta for block 3, which never started/,
    ],
    ["data that is not JSON", garbageLines(), /an event's data is not JSON/],
    ["more blocks than the bound", manyBlocks(4), /more than 3 content blocks/],
  ])("%s fails the call with a clear, retryable ModelError", async (_case, stream, message) => {
    api.queue(stream);
    const error = await failure(
      hostileModel({ maxBlocks: 3 }).complete(REQUEST, { signal: new AbortController().signal }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ category: "server_error", isRetryable: true });
    expect((error as ModelError).message).toMatch(/^the model API sent a malformed reply: /);
    expect((error as ModelError).message).toMatch(message);
  });

  test("a malformed reply is retried like a broken stream, and the next one is used", async () => {
    api.queue(garbageLines(), reply().text("fine"));
    const notices: RetryNotice[] = [];
    const result = await hostileModel({}, 1).complete(REQUEST, {
      signal: new AbortController().signal,
      onRetry: (notice) => notices.push(notice),
    });
    expect(result.content).toEqual([{ type: "text", text: "fine" }]);
    expect(notices).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: null,
        error: expect.stringMatching(/^malformed reply: an event's data is not JSON/),
      }),
    ]);
  });

  test("a line past maxLineBytes is cut off (the SDK joins a line's pieces at a cost that grows with its square)", async () => {
    api.queue({ kind: "raw_stream", body: `data: ${"a".repeat(10_000)}\n\n` });
    const error = await failure(
      hostileModel({ maxLineBytes: 2_048 }).complete(REQUEST, {
        signal: new AbortController().signal,
      }),
    );
    expect((error as ModelError).message).toBe(
      "the model API sent a malformed reply: a line of the reply is over 2048 bytes",
    );
  });

  test("a body past maxResponseBytes is cut off (the SDK would buffer an endless line)", async () => {
    // One 10,000-character line, no line end: the bound must fire before the SDK sees a line.
    api.queue({ kind: "raw_stream", body: `data: ${"a".repeat(10_000)}` });
    const error = await failure(
      hostileModel({ maxResponseBytes: 4_096 }).complete(REQUEST, {
        signal: new AbortController().signal,
      }),
    );
    expect((error as ModelError).message).toBe(
      "the model API sent a malformed reply: the reply is over 4096 bytes",
    );
  });

  test("a giant text stream past maxBlockChars fails, and the SDK's log quotes little of it", async () => {
    api.queue(giantText(20, 1_000), garbageLines(1_000_000));
    const model = hostileModel({ maxBlockChars: 10_000 });
    const signal = new AbortController().signal;
    expect(String(await failure(model.complete(REQUEST, { signal })))).toMatch(
      /content block 0 is longer than 10000 characters/,
    );
    expect(String(await failure(model.complete(REQUEST, { signal })))).toMatch(/not JSON/);
    expect(logged.join("")).toMatch(/Could not parse message into JSON/);
    expect(logged.join("").length).toBeLessThan(10_000);
  });

  test("an error event with a megabyte message is quoted briefly", async () => {
    api.queue(
      httpError(400, {
        type: "error",
        error: { type: "invalid_request_error", message: "m".repeat(1_000_000) },
      }),
    );
    const error = await failure(
      hostileModel().complete(REQUEST, { signal: new AbortController().signal }),
    );
    expect((error as ModelError).message.length).toBeLessThan(2_200);
    expect((error as ModelError).message).toMatch(/… \(\d+ more chars\)/);
  });
});

describe("createAnthropicModel when the signal aborts", () => {
  // useModelServer serves whole replies only, so this block has its own msw server with replies
  // that never finish.
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());

  test("while waiting for the response, it rejects promptly with the signal's reason", async () => {
    const arrived = promiseWithResolve();
    server.use(
      http.post(MOCKED_MESSAGES_URL, async () => {
        arrived.resolve();
        await delay("infinite");
      }),
    );
    const controller = new AbortController();
    const reason = new Error("task cancelled");

    const pending = failure(complete(controller.signal));
    await arrived.promise;
    controller.abort(reason);

    expect(await settleWithin(pending, 1_000)).toBe(reason);
  });

  test("while the reply streams, it rejects promptly with the signal's reason, not a ModelError", async () => {
    const sse = toSse(reply().text("a long answer that never ends").build());
    const firstEvents = `${sse.split("\n\n").slice(0, 3).join("\n\n")}\n\n`;
    const streaming = promiseWithResolve();
    server.use(
      http.post(MOCKED_MESSAGES_URL, ({ request }) => {
        // The first events go out at once; the stream asks for more only once the client has
        // read them, and from then on it never delivers. msw does not end a mocked body when the
        // request is aborted after its headers (real fetch does: mswjs/interceptors#693), so the
        // body does what the network would: it fails with the request's abort.
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            request.signal.addEventListener("abort", () =>
              controller.error(new DOMException("This operation was aborted", "AbortError")),
            );
          },
          pull(controller) {
            pulls += 1;
            if (pulls === 1) {
              controller.enqueue(new TextEncoder().encode(firstEvents));
              return;
            }
            streaming.resolve();
            return new Promise<void>(() => {});
          },
        });
        return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
      }),
    );
    const controller = new AbortController();
    const reason = new Error("task timed out");

    const pending = failure(complete(controller.signal));
    await streaming.promise;
    controller.abort(reason);
    const error = await settleWithin(pending, 1_000);

    expect(error).toBe(reason);
    expect(error).not.toBeInstanceOf(ModelError);
  });
});

function promiseWithResolve(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** What `promise` settled to, or a marker string when it took longer than `ms`. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`still pending after ${ms} ms`), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
