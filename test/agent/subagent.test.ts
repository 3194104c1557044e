import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { AgentEvent, RunResult } from "../../src/agent/events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import type { SubagentSettings } from "../../src/agent/run-state.js";
import type { ModelClient, ModelRequest } from "../../src/model/model-client.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { reply } from "../helpers/replies.js";

// The task tool in the loop: a subagent is a loop of its own whose calls, tokens and cost count
// against the run's limits; its events name the task call that started it.

const echo = defineTool({
  name: "echo",
  description: "echoes",
  input: z.object({ text: z.string() }).strict(),
  run: async ({ text }, ctx) => ({
    content: `echo: ${text}${ctx.parentToolUseId === undefined ? "" : ` (in ${ctx.parentToolUseId})`}`,
    isError: false,
  }),
});
const other = defineTool({
  name: "other",
  description: "another tool",
  input: z.object({}).strict(),
  run: async () => ({ content: "other", isError: false }),
});

/** One model for every agent of the run (as a live run has), serving replies in call order. */
function sharedModel(...replies: ReturnType<typeof reply>[]) {
  const inner = createReplayModel(
    replies.map((r) => r.build()),
    "test replies",
  );
  const requests: ModelRequest[] = [];
  const model: ModelClient = {
    complete: (request, options) => {
      requests.push(structuredClone({ ...request, messages: [...request.messages] }));
      return inner.complete(request, options);
    },
  };
  return { model, requests };
}

type RunOptions = {
  maxSteps?: number;
  maxTokens?: number;
  subagents?: Partial<SubagentSettings>;
  tools?: ReturnType<typeof defineTool>[];
  signal?: AbortSignal;
};

async function run(model: ModelClient, options: RunOptions = {}) {
  const events: AgentEvent[] = [];
  const result: RunResult = await runAgent({
    model,
    modelName: "claude-test",
    system: "top",
    prompt: "do the thing",
    tools: options.tools ?? [echo, other],
    limits: {
      maxSteps: options.maxSteps ?? 20,
      maxTokens: options.maxTokens ?? 1_000_000,
      maxOutputTokens: 1000,
    },
    workspaceRoot: "/nonexistent",
    signal: options.signal ?? new AbortController().signal,
    onEvent: (event) => events.push(event),
    subagents: {
      maxSteps: 5,
      maxDepth: 1,
      systemFor: (tools) => `sub with ${tools.join(",")}`,
      modelFor: () => model,
      ...options.subagents,
    },
  });
  return { result, events };
}

const resultsOf = (events: AgentEvent[]) =>
  events.flatMap((event) =>
    event.type === "tool_result"
      ? [
          {
            tool: event.toolName,
            parent: event.subagent?.parentToolUseId,
            content: event.block.content,
            isError: event.block.is_error === true,
          },
        ]
      : [],
  );

describe("the task tool", () => {
  test("a subagent works in a fresh conversation with the tools asked for; its final text is the result", async () => {
    const { model, requests } = sharedModel(
      reply().toolUse("task", { description: "look", prompt: "echo hi", tools: ["echo"] }, "t1"),
      reply().toolUse("echo", { text: "hi" }, "c1").usage(100, 10),
      reply().text("child says hi").usage(100, 10),
      reply().text("done"),
    );
    const { result, events } = await run(model);

    expect(result).toMatchObject({ status: "completed", steps: 4, finalText: "done" });
    expect(resultsOf(events)).toEqual([
      { tool: "echo", parent: "t1", content: "echo: hi (in t1)", isError: false },
      { tool: "task", parent: undefined, content: "child says hi", isError: false },
    ]);
    const child = requests[1];
    expect(child?.system).toBe("sub with echo");
    expect(child?.messages).toEqual([{ role: "user", content: "echo hi" }]);
    expect(child?.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(requests[0]?.tools.map((tool) => tool.name)).toEqual(["echo", "other", "task"]);
    const tagged = events
      .filter((event) => event.subagent !== undefined)
      .map((event) => event.type);
    expect(tagged).toEqual(["model_reply", "tool_start", "tool_result", "model_reply"]);
    expect(events.find((event) => event.type === "subagent_start")).toMatchObject({
      step: 1,
      toolUseId: "t1",
      depth: 1,
      tools: ["echo"],
      maxSteps: 5,
    });
    expect(events.find((event) => event.type === "subagent_end")).toMatchObject({
      toolUseId: "t1",
      toolUses: 1,
      result: { status: "completed", steps: 2 },
    });
  });

  test("a subagent that reaches its own step limit is an error result; the agent goes on", async () => {
    const { model } = sharedModel(
      reply().toolUse("task", { description: "loop", prompt: "go", max_steps: 2 }, "t1"),
      reply().toolUse("echo", { text: "1" }),
      reply().toolUse("echo", { text: "2" }),
      reply().text("recovered"),
    );
    const { result, events } = await run(model);

    expect(result).toMatchObject({ status: "completed", steps: 4, finalText: "recovered" });
    const task = resultsOf(events).find((entry) => entry.tool === "task");
    expect(task?.isError).toBe(true);
    expect(task?.content).toMatch(
      /^The subagent stopped before it finished: the subagent's step limit was reached \(2 of 2 steps\); raise subagents.max_steps, or the task call's max_steps\./,
    );
    expect(events.find((event) => event.type === "limit_reached")).toMatchObject({
      limit: "max_steps",
      used: 2,
      max: 2,
      subagent: { parentToolUseId: "t1", rootStep: 1 },
    });
  });

  test("a call asking for more steps than the task allows gets the task's limit", async () => {
    const { model } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go", max_steps: 99 }, "t1"),
      reply().text("ok"),
      reply().text("done"),
    );
    const { events } = await run(model, { subagents: { maxSteps: 3 } });

    expect(events.find((event) => event.type === "subagent_start")).toMatchObject({ maxSteps: 3 });
  });

  test("a subagent can never have a tool its agent lacks, nor nest past max_depth", async () => {
    const { model, requests } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go", tools: ["echo", "bash"] }, "t1"),
      reply().toolUse("task", { description: "y", prompt: "go", tools: ["task"] }, "t2"),
      reply().text("gave up"),
    );
    const { result, events } = await run(model);

    expect(result.status).toBe("completed");
    expect(resultsOf(events)).toEqual([
      {
        tool: "task",
        parent: undefined,
        isError: true,
        content: expect.stringMatching(
          /^task: a subagent can only have tools you have; you do not have "bash"\. Yours: echo, other, task\./,
        ),
      },
      {
        tool: "task",
        parent: undefined,
        isError: true,
        content: expect.stringMatching(
          /cannot start subagents of its own here \(subagents\.max_depth is 1\)/,
        ),
      },
    ]);
    // Neither call started a subagent: no model call was made for one.
    expect(requests).toHaveLength(3);
    expect(events.some((event) => event.type === "subagent_start")).toBe(false);
  });

  test("an empty tools list is refused (the subagent could not act); a repeated tool is given once", async () => {
    const { model, requests } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go", tools: [] }, "t1"),
      reply().toolUse("task", { description: "y", prompt: "go", tools: ["echo", "echo"] }, "t2"),
      reply().text("child"),
      reply().text("done"),
    );
    const { events } = await run(model);

    expect(resultsOf(events)[0]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^task: "tools" is empty, so the subagent could not act/),
    });
    expect(requests[2]?.tools.map((tool) => tool.name)).toEqual(["echo"]);
  });

  test("at max_depth 1 the subagent is not offered the task tool; at 2 it is, and its child is not", async () => {
    const one = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().text("child"),
      reply().text("done"),
    );
    await run(one.model);
    expect(one.requests[1]?.tools.map((tool) => tool.name)).toEqual(["echo", "other"]);

    const two = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().toolUse("task", { description: "y", prompt: "deeper" }, "t2"),
      reply().text("grandchild"),
      reply().text("child"),
      reply().text("done"),
    );
    const { result, events } = await run(two.model, { subagents: { maxDepth: 2 } });
    expect(result).toMatchObject({ status: "completed", steps: 5 });
    expect(two.requests[1]?.tools.map((tool) => tool.name)).toEqual(["echo", "other", "task"]);
    expect(two.requests[2]?.tools.map((tool) => tool.name)).toEqual(["echo", "other"]);
    const starts = events.filter((event) => event.type === "subagent_start");
    expect(starts).toMatchObject([
      { toolUseId: "t1", depth: 1 },
      { toolUseId: "t2", depth: 2, subagent: { parentToolUseId: "t1", rootStep: 1 } },
    ]);
  });

  test("a subagent's reply that crosses the run's max_tokens stops the whole run there", async () => {
    const { model, requests } = sharedModel(
      reply()
        .toolUse("task", { description: "x", prompt: "go" }, "t1")
        .toolUse("echo", { text: "after" }, "e1")
        .usage(100, 0),
      reply().toolUse("echo", { text: "big" }).usage(5_000, 0),
      reply().text("never"),
    );
    const { result, events } = await run(model, { maxTokens: 1_000 });

    expect(result).toMatchObject({ status: "max_tokens", steps: 2 });
    expect(result.usage.inputTokens).toBe(5_100);
    // The subagent's tool call was not run, nor the agent's call after the task call.
    expect(resultsOf(events).map((entry) => entry.tool)).toEqual(["task"]);
    expect(requests).toHaveLength(2);
    const limits = events.filter((event) => event.type === "limit_reached");
    expect(limits).toMatchObject([
      { limit: "max_tokens", used: 5_100, max: 1_000, subagent: { parentToolUseId: "t1" } },
    ]);
  });

  test("a subagent's calls count against the run's max_steps", async () => {
    const { model } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().toolUse("echo", { text: "1" }),
      reply().toolUse("echo", { text: "2" }),
      reply().text("never"),
    );
    const { result } = await run(model, { maxSteps: 3 });

    expect(result).toMatchObject({ status: "max_steps", steps: 3 });
    expect(result.stoppedBy).toMatchObject({ limit: "max_steps", used: 3, max: 3 });
  });

  test("the loop guard inside a subagent stops the subagent only; the agent goes on", async () => {
    const { model } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().toolUse("echo", { text: "same" }),
      reply().toolUse("echo", { text: "same" }),
      reply().text("recovered"),
    );
    const events: AgentEvent[] = [];
    const result = await runAgent({
      model,
      modelName: "claude-test",
      system: "top",
      prompt: "go",
      tools: [echo],
      limits: { maxSteps: 20, maxTokens: 1_000_000, maxOutputTokens: 1000, maxRepeatedCalls: 2 },
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
      subagents: { maxSteps: 5, maxDepth: 1, systemFor: () => "sub", modelFor: () => model },
    });

    expect(result).toMatchObject({ status: "completed", finalText: "recovered" });
    expect(resultsOf(events).find((entry) => entry.tool === "task")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^The subagent stopped before it finished: loop: /),
    });
  });

  test("a task call whose id already started a subagent is refused: subagents stay apart", async () => {
    const { model, requests } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().text("first"),
      reply().toolUse("task", { description: "y", prompt: "again" }, "t1"),
      reply().text("done"),
    );
    const { result, events } = await run(model);

    expect(result.status).toBe("completed");
    expect(resultsOf(events)[1]).toMatchObject({
      isError: true,
      content:
        'task: the call id "t1" already started a subagent in this run, so this call was not run; send it again with a new id',
    });
    expect(requests).toHaveLength(4);
  });

  test("a cancellation during a subagent ends both; the subagent's end is reported", async () => {
    const controller = new AbortController();
    const waiting = defineTool({
      name: "wait",
      description: "waits",
      input: z.object({}).strict(),
      run: (_input, ctx) => {
        controller.abort("cancelled");
        return Promise.resolve({
          content: ctx.signal.aborted ? "[cancelled]" : "?",
          isError: true,
        });
      },
    });
    const { model } = sharedModel(
      reply().toolUse("task", { description: "x", prompt: "go" }, "t1"),
      reply().toolUse("wait", {}),
      reply().text("never"),
    );
    const { result, events } = await run(model, { tools: [waiting], signal: controller.signal });

    expect(result.status).toBe("cancelled");
    expect(events.find((event) => event.type === "subagent_end")).toMatchObject({
      result: { status: "cancelled" },
    });
    expect(
      events.filter((event) => event.type === "tool_result").map((event) => event.isInterrupted),
    ).toEqual([true, true]);
  });
});
