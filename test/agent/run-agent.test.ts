import { describe, expect, test, vi } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../src/agent/events.js";
import { CUT_OFF_NOTICE, runAgent } from "../../src/agent/run-agent.js";
import { type ModelClient, ModelError, type ModelRequest } from "../../src/model/model-client.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { defineTool, ToolError } from "../../src/tools/define-tool.js";
import { reply } from "../helpers/replies.js";

const echo = defineTool({
  name: "echo",
  description: "echoes",
  input: z.object({ text: z.string() }).strict(),
  run: async ({ text }) => ({ content: `echo: ${text}`, isError: false }),
});
const failing = defineTool({
  name: "fail",
  description: "fails",
  input: z.object({}).strict(),
  run: async () => {
    throw new ToolError("no match for that text");
  },
});
const crashing = defineTool({
  name: "crash",
  description: "crashes",
  input: z.object({}).strict(),
  run: async () => {
    throw new Error("disk on fire");
  },
});
/** Set once the "wait" tool is running, so that a test can abort during it. */
let isWaiting = false;
const waitForAbort = defineTool({
  name: "wait",
  description: "waits until aborted",
  input: z.object({}).strict(),
  run: (_input, ctx) => {
    isWaiting = true;
    return new Promise((resolve) =>
      ctx.signal.addEventListener(
        "abort",
        () => resolve({ content: "[cancelled]", isError: true }),
        { once: true },
      ),
    );
  },
});

/** A replay model that also records every request it gets. */
function recordingModel(
  ...replies: ReturnType<typeof reply>[]
): ModelClient & { requests: ModelRequest[] } {
  const inner = createReplayModel(
    replies.map((r) => r.build()),
    "test replies",
  );
  const requests: ModelRequest[] = [];
  return {
    requests,
    complete: (request, options) => {
      requests.push(structuredClone({ ...request, messages: [...request.messages] }));
      return inner.complete(request, options);
    },
  };
}

function run(
  model: ModelClient,
  overrides: { maxSteps?: number; maxTokens?: number; signal?: AbortSignal } = {},
) {
  const events: AgentEvent[] = [];
  const promise = runAgent({
    model,
    modelName: "claude-test",
    system: "be helpful",
    prompt: "do the thing",
    tools: [echo, failing, crashing, waitForAbort],
    limits: {
      maxSteps: overrides.maxSteps ?? 10,
      maxTokens: overrides.maxTokens ?? 1_000_000,
      maxOutputTokens: 1000,
    },
    workspaceRoot: "/nonexistent",
    signal: overrides.signal ?? new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  return { events, promise };
}

describe("runAgent", () => {
  test("runs every tool call of a reply and sends all results back in one user message", async () => {
    const model = recordingModel(
      reply()
        .text("two calls")
        .toolUse("echo", { text: "a" }, "ta")
        .toolUse("echo", { text: "b" }, "tb"),
      reply().text("all done"),
    );
    const { promise, events } = run(model);
    const result = await promise;

    expect(result).toMatchObject({
      status: "completed",
      steps: 2,
      finalText: "all done",
      stopReason: "end_turn",
    });
    const second = model.requests[1];
    expect(second?.messages).toHaveLength(3);
    expect(second?.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "ta", content: "echo: a" },
        { type: "tool_result", tool_use_id: "tb", content: "echo: b" },
      ],
    });
    expect(events.map((event) => event.type)).toEqual([
      "model_reply",
      "tool_start",
      "tool_result",
      "tool_start",
      "tool_result",
      "model_reply",
    ]);
    expect(events[1]).toEqual({
      type: "tool_start",
      step: 1,
      toolName: "echo",
      toolUseId: "ta",
      input: { text: "a" },
    });
  });

  test("tool failures, unknown tools and bad input go back to the model as error results", async () => {
    const model = recordingModel(
      reply()
        .toolUse("fail", {})
        .toolUse("crash", {})
        .toolUse("nope", {})
        .toolUse("echo", { txt: "typo" }),
      reply().text("ok"),
    );
    const result = await run(model).promise;

    expect(result.status).toBe("completed");
    const results = model.requests[1]?.messages[2]?.content;
    expect(results).toEqual([
      expect.objectContaining({ content: "no match for that text", is_error: true }),
      expect.objectContaining({ content: "crash failed: disk on fire", is_error: true }),
      expect.objectContaining({
        content: expect.stringContaining('unknown tool "nope"'),
        is_error: true,
      }),
      expect.objectContaining({
        content: expect.stringContaining('echo: "text" is required'),
        is_error: true,
      }),
    ]);
  });

  test("max_steps: exactly that many model calls, then stops with the limit event", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "1" }),
      reply().toolUse("echo", { text: "2" }),
      reply().toolUse("echo", { text: "3" }),
      reply().toolUse("echo", { text: "4" }),
    );
    const { promise, events } = run(model, { maxSteps: 3 });
    const result = await promise;

    expect(model.requests).toHaveLength(3);
    expect(result.status).toBe("max_steps");
    expect(result.steps).toBe(3);
    expect(events.at(-1)).toEqual({
      type: "limit_reached",
      step: 3,
      limit: "max_steps",
      used: 3,
      max: 3,
    });
  });

  test("max_tokens: stops at the call whose usage crosses the limit, without running its tools", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "1" }).usage(400, 50),
      reply().toolUse("echo", { text: "2" }).usage(500, 100, 20, 30),
      reply().text("never").usage(1, 1),
    );
    const { promise, events } = run(model, { maxTokens: 1000 });
    const result = await promise;

    expect(model.requests).toHaveLength(2);
    expect(result).toMatchObject({ status: "max_tokens", steps: 2 });
    expect(result.usage).toEqual({
      inputTokens: 900,
      outputTokens: 150,
      cacheCreationInputTokens: 20,
      cacheReadInputTokens: 30,
    });
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(1);
    expect(events.at(-1)).toEqual({
      type: "limit_reached",
      step: 2,
      limit: "max_tokens",
      used: 1100,
      max: 1000,
    });
  });

  test("a final answer that crosses max_tokens completes, and the result records the excess", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "1" }).usage(400, 50),
      reply().text("All done.").usage(500, 100),
    );
    const { promise, events } = run(model, { maxTokens: 1000 });
    const result = await promise;

    expect(model.requests).toHaveLength(2);
    expect(result).toMatchObject({
      status: "completed",
      steps: 2,
      finalText: "All done.",
      limitExceededByFinalReply: { limit: "max_tokens", used: 1050, max: 1000 },
    });
    expect(events.some((event) => event.type === "limit_reached")).toBe(false);
  });

  test("a reply cut off at max_output_tokens that crosses max_tokens still stops at max_tokens", async () => {
    const model = recordingModel(reply().text("Half of it").stop("max_tokens").usage(900, 200));
    const result = await run(model, { maxTokens: 1000 }).promise;

    expect(result.status).toBe("max_tokens");
    expect(result.limitExceededByFinalReply).toBeUndefined();
  });

  test("a tool call the abort cut short is marked interrupted; the calls before it are not", async () => {
    const controller = new AbortController();
    const model = recordingModel(
      reply().toolUse("echo", { text: "1" }).toolUse("wait", {}),
      reply().text("never"),
    );
    isWaiting = false;
    const { promise, events } = run(model, { signal: controller.signal });
    await vi.waitFor(() => expect(isWaiting).toBe(true));
    controller.abort("cancelled");
    await promise;

    const results = events.filter((event) => event.type === "tool_result");
    expect(results.map((event) => [event.toolName, event.isInterrupted])).toEqual([
      ["echo", false],
      ["wait", true],
    ]);
  });

  test("a budget spent exactly refuses the next call", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "1" }).usage(60, 40),
      reply().text("never"),
    );
    const result = await run(model, { maxTokens: 100 }).promise;

    expect(model.requests).toHaveLength(1);
    expect(result.status).toBe("max_tokens");
  });

  test("an abort with reason 'timeout' during a tool ends the run with status timeout", async () => {
    const controller = new AbortController();
    const model = recordingModel(reply().toolUse("wait", {}), reply().text("never"));
    isWaiting = false;
    const { promise, events } = run(model, { signal: controller.signal });
    await vi.waitFor(() => expect(isWaiting).toBe(true));
    controller.abort("timeout");
    const result = await promise;

    expect(result.status).toBe("timeout");
    expect(model.requests).toHaveLength(1);
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({
      block: { is_error: true },
    });
    expect(events.at(-1)).toMatchObject({ type: "limit_reached", limit: "timeout", step: 1 });
  });

  test("a cancelled run before the first call makes no call", async () => {
    const controller = new AbortController();
    controller.abort("cancelled");
    const model = recordingModel(reply().text("never"));
    const result = await run(model, { signal: controller.signal }).promise;

    expect(result.status).toBe("cancelled");
    expect(model.requests).toHaveLength(0);
  });

  test("a model failure ends the run with status error and its message", async () => {
    const model: ModelClient = {
      complete: async () => {
        throw new ModelError("model API error 401: invalid x-api-key", { status: 401 });
      },
    };
    const result = await run(model).promise;

    expect(result).toMatchObject({
      status: "error",
      steps: 1,
      error: "model API error 401: invalid x-api-key",
    });
  });

  test("replies running out is an error naming the replies", async () => {
    const model = recordingModel(reply().toolUse("echo", { text: "1" }));
    const result = await run(model).promise;

    expect(result.status).toBe("error");
    expect(result.error).toMatch(/scripted replies in test replies ran out after 1 reply/);
  });

  test("a reply cut off at max_output_tokens without tool calls is told to continue, not counted as done", async () => {
    const model = recordingModel(
      reply().text("Here is the first half").stop("max_tokens"),
      reply().text("and the rest."),
    );
    const { promise, events } = run(model);
    const result = await promise;

    expect(result).toMatchObject({ status: "completed", steps: 2, finalText: "and the rest." });
    expect(events).toContainEqual({ type: "runner_message", step: 1, text: CUT_OFF_NOTICE });
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "user", content: CUT_OFF_NOTICE });
  });

  test("a tool call cut off at max_output_tokens is answered with an error, not run", async () => {
    const model = recordingModel(
      reply()
        .toolUse("echo", { text: "whole" }, "t1")
        .toolUse("echo", { text: "cut" }, "t2")
        .stop("max_tokens"),
      reply().text("ok"),
    );
    const result = await run(model).promise;

    expect(result.status).toBe("completed");
    expect(model.requests[1]?.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "echo: whole" },
      expect.objectContaining({
        tool_use_id: "t2",
        content: expect.stringMatching(/cut off .* not run/),
        is_error: true,
      }),
    ]);
  });

  test("pause_turn calls the model again with the paused reply; refusal ends the run with an error", async () => {
    const paused = recordingModel(
      reply().text("thinking").stop("pause_turn"),
      reply().text("done"),
    );
    const refused = recordingModel(reply().text("I can't help with that.").stop("refusal"));

    expect(await run(paused).promise).toMatchObject({ status: "completed", steps: 2 });
    expect(paused.requests[1]?.messages.at(-1)).toMatchObject({ role: "assistant" });
    expect(await run(refused).promise).toMatchObject({
      status: "error",
      error: expect.stringMatching(/refus/),
    });
  });
});

describe("the loop guard", () => {
  test("the same call with the same input K times in a row ends the run with status loop, the K-th not run", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "again" }),
      reply().toolUse("echo", { text: "again" }),
      reply().toolUse("echo", { text: "again" }),
      reply().text("never"),
    );
    const events: AgentEvent[] = [];
    const result = await runAgent({
      model,
      modelName: "claude-test",
      system: "s",
      prompt: "p",
      tools: [echo],
      limits: { maxSteps: 10, maxTokens: 1_000_000, maxOutputTokens: 1000, maxRepeatedCalls: 3 },
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
    });

    expect(result).toMatchObject({ status: "loop", steps: 3 });
    expect(events.filter((event) => event.type === "tool_result")).toHaveLength(2);
    expect(events.at(-1)).toEqual({
      type: "limit_reached",
      step: 3,
      limit: "loop",
      used: 3,
      max: 3,
    });
  });

  test("a different input in between resets the count", async () => {
    const model = recordingModel(
      reply().toolUse("echo", { text: "a" }),
      reply().toolUse("echo", { text: "a" }),
      reply().toolUse("echo", { text: "b" }),
      reply().toolUse("echo", { text: "a" }),
      reply().text("done"),
    );
    const result = await runAgent({
      model,
      modelName: "claude-test",
      system: "s",
      prompt: "p",
      tools: [echo],
      limits: { maxSteps: 10, maxTokens: 1_000_000, maxOutputTokens: 1000, maxRepeatedCalls: 3 },
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: () => {},
    });

    expect(result.status).toBe("completed");
  });
});
