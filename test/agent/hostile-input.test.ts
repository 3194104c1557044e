import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { MAX_ERROR_TEXT_CHARS, runToolCalls } from "../../src/agent/tool-calls.js";
import { MAX_QUOTE_CHARS } from "../../src/format.js";
import { nestsDeeperThan } from "../../src/json-depth.js";
import type {
  ApiMessage,
  ModelClient,
  ModelRequest,
  ToolResultBlock,
  ToolUseBlock,
} from "../../src/model/model-client.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { MAX_TOOL_INPUT_DEPTH } from "../../src/model/reply-limits.js";
import { defineTool, type Tool, ToolError } from "../../src/tools/define-tool.js";
import { createReadFileTool } from "../../src/tools/read-file.js";
import { reply } from "../helpers/replies.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// The model's tool calls are input too: nested thousands deep, or megabytes long in the places an
// error result quotes back.

/** `{"v": [[[…]]]}`, nesting `depth` levels in all. */
function nested(depth: number): Record<string, unknown> {
  return { v: JSON.parse(`${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}`) };
}

let runs = 0;
const anything = defineTool({
  name: "anything",
  description: "takes any value",
  input: z.object({ v: z.unknown() }).strict(),
  run: async () => {
    runs += 1;
    return { content: "ran", isError: false };
  },
});
const strict = defineTool({
  name: "strict",
  description: "takes one text",
  input: z.object({ text: z.string() }).strict(),
  run: async ({ text }) => ({ content: text, isError: false }),
});
const loud = defineTool({
  name: "loud",
  description: "fails quoting its input",
  input: z.object({ text: z.string(), thrown: z.boolean() }).strict(),
  run: async ({ text, thrown }) => {
    if (thrown) throw new Error(`it broke on ${text}`);
    throw new ToolError(`no match for ${text}`);
  },
});

/** A replay model that keeps each request as JSON (the conversation as the API would get it). */
function recordingModel(...replies: ApiMessage[]): ModelClient & { requests: string[] } {
  const inner = createReplayModel(replies, "test replies");
  const requests: string[] = [];
  return {
    requests,
    complete: (request: ModelRequest, options) => {
      requests.push(JSON.stringify(request.messages));
      return inner.complete(request, options);
    },
  };
}

async function runWith(model: ModelClient, tools: Tool[], workspaceRoot = "/nonexistent") {
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model,
    modelName: "claude-test",
    system: "be helpful",
    prompt: "do the thing",
    tools,
    limits: { maxSteps: 10, maxTokens: 1_000_000, maxOutputTokens: 1000 },
    workspaceRoot,
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  });
  const results = events.flatMap((event) => (event.type === "tool_result" ? [event.block] : []));
  return { result, events, results };
}

describe("tool input nested too deep", () => {
  test("3,000 levels: an error result, the tool not run, and the run goes on", async () => {
    runs = 0;
    const model = recordingModel(
      reply().toolUse("anything", nested(3_000), "deep").build(),
      reply().text("fine").build(),
    );
    const { result, results, events } = await runWith(model, [anything]);

    expect(result).toMatchObject({ status: "completed", steps: 2, finalText: "fine" });
    expect(runs).toBe(0);
    expect(results).toEqual([
      {
        type: "tool_result",
        tool_use_id: "deep",
        content: `anything: the input nests deeper than ${MAX_TOOL_INPUT_DEPTH} levels, so the call was not run; send the input with flat fields`,
        is_error: true,
      },
    ]);
    // What the transcript writes and the next request sends: cut to one level past the bound.
    const first = events.find((event) => event.type === "model_reply");
    const call = first?.type === "model_reply" ? first.reply.content[0] : undefined;
    expect(nestsDeeperThan((call as ToolUseBlock).input, MAX_TOOL_INPUT_DEPTH + 1)).toBe(false);
    expect(JSON.parse(model.requests[1] ?? "[]")).toHaveLength(3);
  });

  test(`${MAX_TOOL_INPUT_DEPTH} levels still reach the tool`, async () => {
    runs = 0;
    const model = recordingModel(
      reply().toolUse("anything", nested(MAX_TOOL_INPUT_DEPTH)).build(),
      reply()
        .toolUse("anything", nested(MAX_TOOL_INPUT_DEPTH + 1))
        .build(),
      reply().text("fine").build(),
    );
    const { results } = await runWith(model, [anything]);
    expect(runs).toBe(1);
    expect(results.map((block) => block.is_error ?? false)).toEqual([false, true]);
  });

  test("runToolCalls checks the depth before anything walks the input (1,000,000 levels)", async () => {
    const call = { type: "tool_use", id: "t", name: "nope", input: nested(1_000_000) } as const;
    const { results, loop } = await runToolCalls([call, call], false, {
      step: 1,
      toolsByName: new Map([["anything", anything]]),
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: () => {},
      guard: { lastCallKey: undefined, repeats: 0 },
      maxRepeatedCalls: 2,
    });
    expect(results).toEqual([
      expect.objectContaining({ is_error: true, content: expect.stringMatching(/nests deeper/) }),
    ]);
    expect(loop).toEqual({ limit: "loop", used: 2, max: 2 });
  });
});

describe("error results quote a bounded part of the input", () => {
  const huge = "h".repeat(1_000_000);

  function expectBounded(block: ToolResultBlock | undefined, max: number) {
    expect(block?.is_error).toBe(true);
    expect(block?.content.length).toBeLessThanOrEqual(max);
    expect(block?.content).toMatch(/… \(\d+ more chars\)/);
  }

  test("unknown tool names, schema errors, ToolErrors and thrown errors", async () => {
    const model = recordingModel(
      reply()
        .toolUse(huge, {})
        .toolUse("strict", { [huge]: 1, text: "a" })
        .toolUse("strict", { text: ["not", "text"], [`${huge}2`]: 1, [`${huge}3`]: 1 })
        .toolUse("loud", { text: huge, thrown: false })
        .toolUse("loud", { text: huge, thrown: true })
        .build(),
      reply().text("fine").build(),
    );
    const { result, results } = await runWith(model, [strict, loud]);

    expect(result.status).toBe("completed");
    expect(results).toHaveLength(5);
    expectBounded(results[0], MAX_QUOTE_CHARS + 200);
    expect(results[0]?.content).toMatch(
      /^unknown tool "h+… \(998\d+ more chars\); the tools you have are: strict, loud$/,
    );
    expectBounded(results[1], MAX_QUOTE_CHARS);
    expectBounded(results[2], MAX_QUOTE_CHARS);
    expect(results[2]?.content).toMatch(/"text": Invalid input: expected string, received array/);
    expectBounded(results[3], MAX_ERROR_TEXT_CHARS + 100);
    expect(results[3]?.content).toMatch(/^no match for h+/);
    expectBounded(results[4], MAX_ERROR_TEXT_CHARS + 100);
    expect(results[4]?.content).toMatch(/^loud failed: it broke on h+/);
  });

  test("a path of a megabyte, to the real read_file tool", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    const model = recordingModel(
      reply()
        .toolUse("read_file", { path: `${"d/".repeat(500_000)}f.txt` })
        .toolUse("read_file", { path: `/etc/${huge}` })
        .toolUse("read_file", { path: "x".repeat(3_000) })
        .build(),
      reply().text("fine").build(),
    );
    const { results } = await runWith(model, [createReadFileTool()], ws.root);

    expect(results).toHaveLength(3);
    for (const block of results) expectBounded(block, MAX_QUOTE_CHARS + 200);
    expect(results[0]?.content).toMatch(
      /^path "d\/d\/.*… \(\d+ more chars\) is too long for the file system$/,
    );
    expect(results[1]?.content).toMatch(/is outside the workspace/);
    expect(results[2]?.content).toMatch(/too long for the file system/);
  });
});

describe("a failure of the loop itself", () => {
  test("ends the run with error, keeping the steps and tokens spent so far", async () => {
    const model = recordingModel(
      reply().toolUse("strict", { text: "a" }).usage(100, 20).build(),
      reply().text("never").build(),
    );
    const result = await runAgent({
      model,
      modelName: "claude-test",
      system: "be helpful",
      prompt: "do the thing",
      tools: [strict],
      limits: { maxSteps: 10, maxTokens: 1_000_000, maxOutputTokens: 1000 },
      workspaceRoot: "/nonexistent",
      signal: new AbortController().signal,
      onEvent: (event) => {
        if (event.type === "tool_result") throw new Error("the reporter broke");
      },
    });
    expect(result).toMatchObject({
      status: "error",
      steps: 1,
      error: "internal error: the reporter broke",
      usage: { inputTokens: 100, outputTokens: 20 },
    });
  });
});
