import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { retryMessage } from "../../src/agent/final-output.js";
import { runAgent } from "../../src/agent/run-agent.js";
import type { FinalOutput } from "../../src/agent/run-state.js";
import type { ModelClient, ModelRequest } from "../../src/model/model-client.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { reply } from "../helpers/replies.js";

/** A judge that accepts `{"ok":…}` objects and names anything else's problem. */
function judge(maxRetries: number): FinalOutput {
  return {
    maxRetries,
    check: (text) => {
      try {
        const value: unknown = JSON.parse(text);
        if (typeof value === "object" && value !== null && "ok" in value) {
          return { ok: true, value: { ...value } };
        }
        return { ok: false, problems: "(the object): must have required property 'ok'" };
      } catch {
        return { ok: false, problems: `it is not valid JSON: ${text}` };
      }
    },
  };
}

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

async function run(
  model: ModelClient,
  output: FinalOutput | undefined,
  maxTokens = 1_000_000,
  withSubagents = false,
) {
  const events: AgentEvent[] = [];
  const subagents = {
    maxSteps: 5,
    maxDepth: 1,
    systemFor: () => "a subagent",
    modelFor: () => model,
  };
  const result = await runAgent({
    model,
    modelName: "claude-test",
    system: "be helpful",
    prompt: "classify",
    tools: [],
    limits: { maxSteps: 10, maxTokens, maxOutputTokens: 1000 },
    workspaceRoot: "/nonexistent",
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    output,
    subagents: withSubagents ? subagents : undefined,
  });
  return { result, events };
}

describe("structured output in the loop", () => {
  test("an invalid final reply goes back with its problems; the valid one completes the run", async () => {
    const model = recordingModel(reply().text("It is a bug."), reply().text('{"ok":true}'));

    const { result, events } = await run(model, judge(2));

    expect(result).toMatchObject({
      status: "completed",
      steps: 2,
      structuredOutput: { ok: true },
      finalText: '{"ok":true}',
    });
    const message = retryMessage("it is not valid JSON: It is a bug.");
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "user", content: message });
    expect(events.filter((event) => event.type === "runner_message")).toEqual([
      { type: "runner_message", step: 1, text: message },
    ]);
    expect(message).toMatch(/^Your final reply is not the JSON object this task asks for: it is/);
    expect(retryMessage("it holds no JSON object (the whole reply, or a ```json block)")).toMatch(
      /a ```json block\)\.\nReply again with only the JSON object/,
    );
  });

  test("past the retries the run ends with invalid_output, the last problems in its error", async () => {
    const model = recordingModel(reply().text("{}"), reply().text("{}"));

    const { result } = await run(model, judge(1));

    expect(result).toMatchObject({
      status: "invalid_output",
      steps: 2,
      error:
        "the final reply is not valid against output_schema after 1 retry (output_retries): (the object): must have required property 'ok'",
    });
    expect(result.structuredOutput).toBeUndefined();
  });

  test("with no retries the first invalid reply ends the run", async () => {
    const { result } = await run(recordingModel(reply().text("no")), judge(0));

    expect([result.status, result.steps, result.error]).toEqual([
      "invalid_output",
      1,
      "the final reply is not valid against output_schema after 0 retries (output_retries): it is not valid JSON: no",
    ]);
  });

  test("without an output schema a final reply completes the run as free text", async () => {
    const { result } = await run(recordingModel(reply().text("It is a bug.")), undefined);

    expect(result.status).toBe("completed");
    expect(result).not.toHaveProperty("structuredOutput");
  });

  test("a valid final reply past the token limit completes, recording both; an invalid one stops at the limit", async () => {
    const valid = await run(
      recordingModel(reply().text('{"ok":1}').usage(900, 200)),
      judge(2),
      1000,
    );
    const invalid = await run(recordingModel(reply().text("{}").usage(900, 200)), judge(2), 1000);

    expect(valid.result).toMatchObject({
      status: "completed",
      structuredOutput: { ok: 1 },
      limitExceededByFinalReply: { limit: "max_tokens", used: 1100, max: 1000 },
    });
    expect([invalid.result.status, invalid.result.structuredOutput]).toEqual([
      "max_tokens",
      undefined,
    ]);
  });

  test("a reply cut off at max_tokens is continued, not judged", async () => {
    const model = recordingModel(
      reply().text('{"ok":').stop("max_tokens"),
      reply().text('{"ok":2}'),
    );

    const { result } = await run(model, judge(0));

    expect([result.status, result.structuredOutput]).toEqual(["completed", { ok: 2 }]);
  });

  test("a subagent's final message is its report, never judged; the agent's own final reply is", async () => {
    const model = recordingModel(
      reply().toolUse("task", { description: "look", prompt: "Look around." }, "t1"),
      reply().text("Found nothing."),
      reply().text('{"ok":"done"}'),
    );

    const { result, events } = await run(model, judge(0), 1_000_000, true);

    expect([result.status, result.structuredOutput]).toEqual(["completed", { ok: "done" }]);
    expect(events.find((event) => event.type === "subagent_end")).toMatchObject({
      result: { status: "completed", finalText: "Found nothing." },
    });
    expect(events.some((event) => event.type === "runner_message")).toBe(false);
  });
});
