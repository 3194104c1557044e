import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ELIDED_RESULT } from "../../src/agent/context.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { createAnthropicModel } from "../../src/model/anthropic.js";
import { LEFT_OUT_TURN_TEXT, type Reasoning } from "../../src/model/model-client.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { bindingProblem, useBindingMessagesApi } from "../helpers/binding-messages-api.js";
import { MOCKED_MESSAGES_URL } from "../helpers/model-server.js";

const api = useBindingMessagesApi();

/** A tool whose every result is 4,000 characters: a few steps outgrow a small context budget. */
const dump = defineTool({
  name: "dump",
  description: "prints a big file",
  input: z.object({ part: z.number() }).strict(),
  run: async ({ part }) => ({ content: `part ${part}: ${"x".repeat(4_000)}`, isError: false }),
});

function run(options: { steps: number; maxContextTokens?: number; reasoning: Reasoning }) {
  const events: AgentEvent[] = [];
  const promise = runAgent({
    model: createAnthropicModel({ apiKey: "test-key", maxRetries: 0 }),
    modelName: "claude-sonnet-5-5",
    system: "be helpful",
    prompt: "read every part",
    reasoning: options.reasoning,
    tools: [dump],
    limits: {
      maxSteps: options.steps + 5,
      maxTokens: 10_000_000,
      maxOutputTokens: 8_192,
      ...(options.maxContextTokens === undefined
        ? {}
        : { maxContextTokens: options.maxContextTokens }),
    },
    workspaceRoot: "/nonexistent",
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  return { events, promise };
}

const toolTurns = (count: number) =>
  Array.from({ length: count }, (_, part) => ({
    thinking: `part ${part} next`,
    toolUse: { name: "dump", input: { part } },
  }));

type Sent = { role: string; content: Array<Record<string, unknown>> };
const messagesOf = (body: Record<string, unknown> | undefined) => (body?.messages ?? []) as Sent[];
describe("signed reasoning in a tool loop (Messages API)", () => {
  test("thinking and redacted blocks go back verbatim, in order, with their signatures, empty text included", async () => {
    api.play(
      { thinking: "", redacted: true, toolUse: { name: "dump", input: { part: 1 } } },
      { thinking: "done thinking", text: "all read" },
    );
    const { promise } = run({ steps: 2, reasoning: { budgetTokens: 2_048 } });
    const result = await promise;

    expect(api.refusals).toEqual([]);
    expect(result.status).toBe("completed");
    const [first, second] = api.requests;
    expect(first?.thinking).toEqual({
      type: "enabled",
      budget_tokens: 2_048,
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
    const turn = messagesOf(second)[1];
    expect(turn?.content.map((block) => block.type)).toEqual([
      "thinking",
      "redacted_thinking",
      "tool_use",
    ]);
    expect(turn?.content[0]).toMatchObject({
      thinking: "",
      signature: expect.stringMatching(/^sig_/),
    });
  });

  test("an effort alone turns on adaptive thinking with that effort", async () => {
    api.play({ thinking: "easy", text: "ok" });
    await run({ steps: 1, reasoning: { effort: "high" } }).promise;

    expect(api.requests[0]).toMatchObject({
      thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
      output_config: { effort: "high" },
    });
  });

  test("thinking tokens are output tokens: the run counts what the API reports", async () => {
    api.play(
      {
        thinking: "long think",
        toolUse: { name: "dump", input: { part: 0 } },
        outputTokens: 3_000,
      },
      { thinking: "t", text: "done", outputTokens: 700 },
    );
    const result = await run({ steps: 2, reasoning: { budgetTokens: 4_096 } }).promise;

    expect(result.usage.outputTokens).toBe(3_700);
  });

  test("after context trimming every request is accepted: the API drops the blocks trimming invalidated, and says so", async () => {
    const steps = 12;
    api.play(...toolTurns(steps), { thinking: "all parts read", text: "done" });
    // 4,000-character results against a 3,000-token (about 12,000-character) budget.
    const { events, promise } = run({
      steps,
      maxContextTokens: 3_000,
      reasoning: { effort: "medium" },
    });
    const result = await promise;

    expect(api.refusals).toEqual([]);
    expect(result).toMatchObject({ status: "completed", steps: steps + 1 });
    const trims = events.flatMap((event) => (event.type === "context_trimmed" ? [event] : []));
    expect(trims.length).toBeGreaterThan(1);
    // Without the drop setting, the API would refuse the request after a trim.
    const last = api.requests.at(-1);
    expect(last?.thinking).toMatchObject({
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
    expect(bindingProblem("claude-sonnet-5-5", messagesOf(last))).toMatch(
      /^messages\.\d+\.content\.0:/,
    );
    // Every request keeps the newest turn's thinking first, as the API requires.
    for (const request of api.requests.slice(1)) {
      const newest = messagesOf(request).findLast((message) => message.role === "assistant");
      expect(newest?.content[0]?.type).toBe("thinking");
    }
    // The API's report of each drop is in the recorded reply.
    const reported = events.flatMap((event) =>
      event.type === "model_reply"
        ? ((event.reply.message.input_transformations ?? []) as Array<{ type: string }>)
        : [],
    );
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.every((entry) => entry.type === "thinking_dropped")).toBe(true);
    expect(api.betas.every((beta) => beta === "thinking-binding-controls-2026-08-01")).toBe(true);
  });

  test("the check is real: a result elided under a signed block makes it fail the check", async () => {
    const steps = 4;
    api.play(...toolTurns(steps), { thinking: "t", text: "done" });
    await run({ steps, reasoning: { effort: "low" } }).promise;
    const messages = structuredClone(messagesOf(api.requests.at(-1)));
    expect(bindingProblem("claude-sonnet-5-5", messages)).toBeUndefined();
    expect(bindingProblem("claude-opus-5", messages)).toMatch(/^messages\.1\.content\.0:/);

    const oldest = messages[2]?.content[0];
    if (oldest === undefined) throw new Error("no tool result to elide");
    oldest.content = ELIDED_RESULT;

    expect(bindingProblem("claude-sonnet-5-5", messages)).toMatch(/^messages\.3\.content\.0:/);
  });

  test("manual thinking: a newest tool turn without its thinking has the request go on without thinking, and without the older signed blocks", async () => {
    api.play({ thinking: "now I think", text: "done" });
    const model = createAnthropicModel({ apiKey: "test-key", maxRetries: 0 });
    await model.complete(
      {
        model: "claude-sonnet-5-5",
        system: "s",
        tools: [],
        maxOutputTokens: 8_192,
        reasoning: { budgetTokens: 2_048, effort: "high" },
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "old", signature: "sig_old" },
              { type: "tool_use", id: "t0", name: "dump", input: {} },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t0", content: "x" }] },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "dump", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
        ],
      },
      { signal: new AbortController().signal },
    );

    expect(api.refusals).toEqual([]);
    expect(api.requests[0]).not.toHaveProperty("thinking");
    expect(api.requests[0]).toMatchObject({ output_config: { effort: "high" } });
    // Without `thinking` there is no drop setting: a signed block sent would be checked for nothing.
    expect(JSON.stringify(api.requests[0])).not.toContain("sig_old");
  });

  test("adaptive thinking: a turn the model did not think on keeps thinking on for the next", async () => {
    api.play(
      { thinking: "plan", toolUse: { name: "dump", input: { part: 1 } } },
      { toolUse: { name: "dump", input: { part: 2 } } },
      { thinking: "wrap up", text: "done" },
    );
    const result = await run({ steps: 3, maxContextTokens: 1_500, reasoning: { effort: "low" } })
      .promise;

    expect(api.refusals).toEqual([]);
    expect(result.status).toBe("completed");
    expect(api.requests.at(-1)?.thinking).toMatchObject({ type: "adaptive" });
  });

  test("another Messages-API server (a gateway preset) gets no binding field and no beta header", async () => {
    api.play({ thinking: "t", text: "done" });
    const model = createAnthropicModel({
      apiKey: "test-key",
      maxRetries: 0,
      endpoint: {
        provider: "deepseek",
        // msw's URL: the double answers it, and nothing leaves the process.
        baseURL: new URL(MOCKED_MESSAGES_URL).origin,
        apiKeyEnv: "DEEPSEEK_API_KEY",
      },
    });
    await model.complete(
      {
        model: "claude-sonnet-5-5",
        system: "s",
        tools: [],
        maxOutputTokens: 8_192,
        reasoning: { budgetTokens: 2_048 },
        messages: [{ role: "user", content: "go" }],
      },
      { signal: new AbortController().signal },
    );

    expect(api.requests[0]?.thinking).toEqual({ type: "enabled", budget_tokens: 2_048 });
    expect(api.betas[0]).toBeNull();
  });

  test("a reasoning-only turn from another provider is sent as a placeholder, never empty", async () => {
    api.play({ thinking: "t", text: "done" });
    const model = createAnthropicModel({ apiKey: "test-key", maxRetries: 0 });
    await model.complete(
      {
        model: "claude-sonnet-5-5",
        system: "s",
        tools: [],
        maxOutputTokens: 8_192,
        messages: [
          { role: "user", content: "go" },
          { role: "assistant", content: [{ type: "reasoning", text: "cut off while thinking" }] },
          { role: "user", content: "continue" },
        ],
      },
      { signal: new AbortController().signal },
    );

    expect(messagesOf(api.requests[0])[1]?.content).toEqual([
      { type: "text", text: LEFT_OUT_TURN_TEXT },
    ]);
  });
});
