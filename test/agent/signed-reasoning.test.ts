import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ELIDED_RESULT } from "../../src/agent/context.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { createAnthropicModel } from "../../src/model/anthropic.js";
import type { Reasoning } from "../../src/model/model-client.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { bindingProblem, useBindingMessagesApi } from "../helpers/binding-messages-api.js";

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
const signedIn = (messages: Sent[]) =>
  messages.flatMap((message) =>
    message.role === "assistant"
      ? message.content.filter((block) => String(block.type).endsWith("thinking"))
      : [],
  );

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
    expect(first?.thinking).toEqual({ type: "enabled", budget_tokens: 2_048 });
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
      thinking: { type: "adaptive" },
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

  test("after context trimming, every request is one the API accepts, and later reasoning is kept", async () => {
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
    expect(trims.every((trim) => trim.droppedReasoning > 0)).toBe(true);
    // Reasoning signed after the last trim still goes back.
    const last = messagesOf(api.requests.at(-1));
    expect(last.some((m) => JSON.stringify(m).includes(ELIDED_RESULT))).toBe(true);
    expect(signedIn(last).length).toBeGreaterThan(0);
  });

  test("the check is real: eliding a result without dropping the reasoning after it is refused", async () => {
    const steps = 4;
    api.play(...toolTurns(steps), { thinking: "t", text: "done" });
    await run({ steps, reasoning: { effort: "low" } }).promise;
    const messages = structuredClone(messagesOf(api.requests.at(-1)));
    expect(bindingProblem(messages)).toBeUndefined();
    expect(signedIn(messages.slice(3)).length).toBeGreaterThan(0);

    const oldest = messages[2]?.content[0];
    if (oldest === undefined) throw new Error("no tool result to elide");
    oldest.content = ELIDED_RESULT;

    expect(bindingProblem(messages)).toMatch(/^messages\.3\.content\.0: the conversation before/);
  });
});
