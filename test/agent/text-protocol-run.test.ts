import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import type { ApiMessage, ModelClient, ModelRequest } from "../../src/model/model-client.js";
import { PROTOCOL_ERROR_TOOL } from "../../src/model/protocol-error.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { withTextProtocol } from "../../src/model/text-protocol.js";
import { createTools } from "../../src/tools/index.js";
import { reply } from "../helpers/replies.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Scripted text-only replies (a model with no tool support), recording what it was sent. */
function textModel(...texts: string[]): ModelClient & { requests: ModelRequest[] } {
  const inner = createReplayModel(
    texts.map((text) => reply().text(text).build()),
    "test replies",
  );
  const requests: ModelRequest[] = [];
  return {
    requests,
    complete(request, options) {
      requests.push(structuredClone(request));
      return inner.complete(request, options);
    },
  };
}

async function run(model: ModelClient, root: string, maxSteps = 10) {
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model,
    modelName: "local-model",
    system: "You are a coder.",
    prompt: "make notes.txt",
    tools: createTools(["bash", "write_file"], { bash: { timeoutMs: 10_000, env: {} } }),
    limits: { maxSteps, maxTokens: 1_000_000, maxOutputTokens: 1000, maxRepeatedCalls: 5 },
    workspaceRoot: root,
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  return { result, events };
}

const toolResults = (events: AgentEvent[]) =>
  events.flatMap((event) =>
    event.type === "tool_result"
      ? [{ tool: event.toolName, content: event.block.content, isError: event.block.is_error }]
      : [],
  );

const THREE_STEPS = [
  'First I look around.\ntool: bash({"command":"echo hello from bash"})\ntool_result({"content":"invented"})',
  'tool: write_file({\n  "path": "notes.txt",\n  "content": "braces {inside} \\"strings\\"\\n"\n})',
  "I wrote notes.txt. Done.",
];

describe("runAgent over the text tool protocol", () => {
  test("a 3-step task (bash, then write_file, then an answer) completes", async () => {
    await using ws = await tmpWorkspace();
    const model = textModel(...THREE_STEPS);
    const { result, events } = await run(withTextProtocol(model), ws.root);

    expect(result).toMatchObject({
      status: "completed",
      steps: 3,
      finalText: "I wrote notes.txt. Done.",
    });
    expect(await readFile(ws.path("notes.txt"), "utf8")).toBe('braces {inside} "strings"\n');
    expect(toolResults(events).map(({ tool, isError }) => [tool, isError])).toEqual([
      ["bash", undefined],
      ["write_file", undefined],
    ]);
    // What the model got back: its own call line (the invented result dropped), then the result.
    const third = model.requests[2];
    expect(third?.tools).toEqual([]);
    expect(third?.messages[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "text",
          text: 'First I look around.\ntool: bash({"command":"echo hello from bash"})',
        },
      ],
    });
    const resultText = JSON.stringify(third?.messages[2]);
    expect(resultText).toContain('tool_result({\\"tool\\":\\"bash\\",\\"is_error\\":false');
    expect(resultText).toContain("hello from bash");
  });

  test("a recorded text-protocol run replays identically offline, with or without the decorator", async () => {
    await using live = await tmpWorkspace();
    const recorded = await run(withTextProtocol(textModel(...THREE_STEPS)), live.root);
    const messages: ApiMessage[] = recorded.events.flatMap((event) =>
      event.type === "model_reply" ? [structuredClone(event.reply.message)] : [],
    );
    const pathless = (events: AgentEvent[]) =>
      toolResults(events).map((r) => ({ ...r, content: r.content.replaceAll(live.root, "") }));

    for (const model of [
      createReplayModel(messages, "recorded"),
      withTextProtocol(createReplayModel(messages, "recorded")),
    ]) {
      await using again = await tmpWorkspace();
      const replayed = await run(model, again.root);
      expect(replayed.result.status).toBe("completed");
      expect(
        toolResults(replayed.events).map((r) => ({
          ...r,
          content: r.content.replaceAll(again.root, ""),
        })),
      ).toEqual(pathless(recorded.events));
      expect(await readFile(again.path("notes.txt"), "utf8")).toBe('braces {inside} "strings"\n');
    }
  });

  test("3 malformed calls in a row end the run with protocol_error; each got its error back", async () => {
    await using ws = await tmpWorkspace();
    const model = textModel(
      "tool: bash({'command':'ls'})",
      'tool: bsh({"command":"ls"})',
      'tool: bash({"command":"ls"',
      "never asked",
    );
    const { result, events } = await run(withTextProtocol(model), ws.root);

    expect(result.status).toBe("protocol_error");
    expect(result.steps).toBe(3);
    expect(result.error).toContain("3 malformed tool calls in a row");
    const results = toolResults(events);
    expect(results.map((r) => [r.tool, r.isError])).toEqual([
      [PROTOCOL_ERROR_TOOL, true],
      [PROTOCOL_ERROR_TOOL, true],
      [PROTOCOL_ERROR_TOOL, true],
    ]);
    expect(results[0]?.content).toContain("not valid JSON");
    expect(results[1]?.content).toContain("did you mean bash?");
    expect(results[2]?.content).toContain("never closed");
    // The model saw the first error as a tool_result line.
    expect(JSON.stringify(model.requests[1]?.messages[2])).toContain("not valid JSON");
  });

  test("a good call resets the count, and a second call in one reply is answered, not run", async () => {
    await using ws = await tmpWorkspace();
    const model = textModel(
      "tool: bash(ls)",
      "tool: bash(ls)",
      'tool: bash({"command":"echo one > one.txt"})\ntool: bash({"command":"echo two > two.txt"})',
      "tool: bash(ls)",
      "tool: bash(ls)",
      "ok, done",
    );
    const { result, events } = await run(withTextProtocol(model), ws.root);

    expect(result.status).toBe("completed");
    const third = toolResults(events).slice(2, 4);
    expect(third.map((r) => r.tool)).toEqual(["bash", PROTOCOL_ERROR_TOOL]);
    expect(third[1]?.content).toContain("one tool call per reply");
    await expect(readFile(ws.path("two.txt"), "utf8")).rejects.toThrow();
  });

  test("a reply cut off at max_tokens inside a call is answered with its own message", async () => {
    await using ws = await tmpWorkspace();
    const inner = createReplayModel(
      [
        reply().text('tool: write_file({"path":"a.txt","content":"aaa').stop("max_tokens").build(),
        reply().text("giving up").build(),
      ],
      "test replies",
    );
    const { result, events } = await run(withTextProtocol(inner), ws.root);

    expect(result.status).toBe("completed");
    expect(toolResults(events)[0]?.content).toContain("cut off at the output token limit");
  });
});

describe("subagents over the text tool protocol", () => {
  test("every call of the run has an id of its own: a subagent's never repeats its parent's", async () => {
    await using ws = await tmpWorkspace();
    const model = withTextProtocol(
      textModel(
        'tool: task({"description":"look","prompt":"echo once"})',
        'tool: bash({"command":"echo child"})',
        "The child is done.",
        'tool: bash({"command":"echo parent"})',
        "All done.",
      ),
    );
    const events: AgentEvent[] = [];
    const result = await runAgent({
      model,
      modelName: "local-model",
      system: "You are a coder.",
      prompt: "go",
      tools: createTools(["bash"], { bash: { timeoutMs: 10_000, env: {} } }),
      limits: { maxSteps: 10, maxTokens: 1_000_000, maxOutputTokens: 1000 },
      workspaceRoot: ws.root,
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
      subagents: { maxSteps: 5, maxDepth: 1, systemFor: () => "sub", modelFor: () => model },
    });

    expect(result.status).toBe("completed");
    const ids = events.flatMap((event) =>
      event.type === "tool_result" ? [event.block.tool_use_id] : [],
    );
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});
