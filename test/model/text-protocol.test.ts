import { describe, expect, test } from "vitest";
import {
  type ModelClient,
  type ModelRequest,
  type ToolSpec,
  toModelReply,
} from "../../src/model/model-client.js";
import { PROTOCOL_ERROR_TOOL } from "../../src/model/protocol-error.js";
import {
  TEXT_PROTOCOL_FORMAT,
  TOOL_RESULT_STOP,
  withTextProtocol,
} from "../../src/model/text-protocol.js";
import { type ReplyBuilder, reply } from "../helpers/replies.js";

const TOOLS: ToolSpec[] = [
  {
    name: "bash",
    description: "Runs a shell command.",
    inputSchema: { properties: { command: { type: "string" } }, required: ["command"] },
  },
  {
    name: "write_file",
    description: "Writes a file.",
    inputSchema: { properties: { path: { type: "string" }, content: { type: "string" } } },
  },
];

/** An inner model that records each request and answers with the next scripted reply. */
function fakeInner(...replies: ReplyBuilder[]): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    async complete(request) {
      requests.push(structuredClone(request));
      const next = replies.shift();
      if (next === undefined) throw new Error("no more replies");
      return toModelReply(next.build());
    },
  };
}

const signal = new AbortController().signal;

function request(messages: ModelRequest["messages"]): ModelRequest {
  return {
    model: "m",
    system: "You are a coder.",
    messages,
    tools: TOOLS,
    maxOutputTokens: 100,
  };
}

describe("withTextProtocol: the request", () => {
  test("sends no tools; the system prompt lists each tool's name, description and schema, then the format", async () => {
    const inner = fakeInner(reply().text("done"));
    await withTextProtocol(inner).complete(request([{ role: "user", content: "go" }]), { signal });

    const sent = inner.requests[0];
    expect(sent?.tools).toEqual([]);
    expect(sent?.system.startsWith("You are a coder.\n\n")).toBe(true);
    expect(sent?.system).toContain("- bash: Runs a shell command.");
    expect(sent?.system).toContain(
      '{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}',
    );
    expect(sent?.system).toContain("- write_file: Writes a file.");
    expect(sent?.system.endsWith(TEXT_PROTOCOL_FORMAT)).toBe(true);
    expect(sent?.stopSequences).toEqual([TOOL_RESULT_STOP]);
    expect(sent?.messages).toEqual([{ role: "user", content: "go" }]);
  });

  test("history: a call is its raw text line, a result is a tool_result({json}) user message", async () => {
    const inner = fakeInner(reply().text("done"));
    await withTextProtocol(inner).complete(
      request([
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "text", text: 'Listing.\ntool: bash({"command":"ls"})' },
            { type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt\n" }],
        },
        // A native turn (a fork onto the text protocol): its call is written out as a line.
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t2", name: "bash", input: { command: "cat a.txt" } }],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t2", content: "no such file", is_error: true },
          ],
        },
      ]),
      { signal },
    );

    expect(inner.requests[0]?.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [{ type: "text", text: 'Listing.\ntool: bash({"command":"ls"})' }],
      },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: 'tool_result({"tool":"bash","is_error":false,"content":"a.txt\\n"})',
          },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "text", text: 'tool: bash({"command":"cat a.txt"})' }],
      },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: 'tool_result({"tool":"bash","is_error":true,"content":"no such file"})',
          },
        ],
      },
    ]);
  });

  test("signed reasoning goes back verbatim ahead of the turn's text; other reasoning never", async () => {
    const inner = fakeInner(reply().text("done"));
    const thinking = { type: "thinking", thinking: "", signature: "sig_1" };
    const redacted = { type: "redacted_thinking", data: "opaque" };
    await withTextProtocol(inner).complete(
      request([
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            thinking,
            { type: "reasoning", text: "a DeepSeek thought" },
            { type: "text", text: 'tool: bash({"command":"ls"})' },
            redacted,
            { type: "tool_use", id: "t1", name: "bash", input: { command: "ls" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a\n" }] },
      ]),
      { signal },
    );

    expect(inner.requests[0]?.messages[1]).toEqual({
      role: "assistant",
      content: [thinking, redacted, { type: "text", text: 'tool: bash({"command":"ls"})' }],
    });
  });
});

describe("withTextProtocol: the reply", () => {
  test("a call line becomes a tool_use block beside the kept text; what follows is dropped", async () => {
    const inner = fakeInner(
      reply().text('Listing.\ntool: bash({"command":"ls"})\ntool_result({"content":"made up"})'),
    );
    const got = await withTextProtocol(inner).complete(request([{ role: "user", content: "go" }]), {
      signal,
    });

    expect(got.content).toEqual([
      { type: "text", text: 'Listing.\ntool: bash({"command":"ls"})' },
      { type: "tool_use", id: "toolu_text_1_1", name: "bash", input: { command: "ls" } },
    ]);
    expect(got.stopReason).toBe("tool_use");
    expect(got.message.content).toEqual(got.content);
    expect(got.message.text_protocol).toEqual({
      stop_reason: "end_turn",
      raw_text: 'Listing.\ntool: bash({"command":"ls"})\ntool_result({"content":"made up"})',
    });
  });

  test("a second call gets a protocol-error block that says one call per reply", async () => {
    const inner = fakeInner(
      reply().text('tool: bash({"command":"ls"})\ntool: write_file({"path":"a","content":""})'),
    );
    const got = await withTextProtocol(inner).complete(request([{ role: "user", content: "go" }]), {
      signal,
    });

    expect(got.content.slice(1)).toEqual([
      { type: "tool_use", id: "toolu_text_1_1", name: "bash", input: { command: "ls" } },
      {
        type: "tool_use",
        id: "toolu_text_1_2",
        name: PROTOCOL_ERROR_TOOL,
        input: { error: expect.stringContaining("one tool call per reply"), malformed: false },
      },
    ]);
  });

  test("a malformed call becomes one malformed protocol-error block", async () => {
    const inner = fakeInner(reply().text('tool: bsh({"command":"ls"})'));
    const got = await withTextProtocol(inner).complete(request([{ role: "user", content: "go" }]), {
      signal,
    });

    expect(got.content[1]).toEqual({
      type: "tool_use",
      id: "toolu_text_1_1",
      name: PROTOCOL_ERROR_TOOL,
      input: { error: expect.stringContaining("did you mean bash?"), malformed: true },
    });
  });

  test("a final answer, and a reply already holding tool_use blocks (replayed), pass through unchanged", async () => {
    const final = reply().text("All done.");
    const recorded = reply()
      .text('tool: bash({"command":"ls"})\ntool: bash({"command":"pwd"})')
      .toolUse("bash", { command: "ls" }, "toolu_text_1_1");
    const inner = fakeInner(final, recorded);
    const model = withTextProtocol(inner);
    const first = await model.complete(request([{ role: "user", content: "go" }]), { signal });
    const second = await model.complete(request([{ role: "user", content: "go" }]), { signal });

    expect(first.content).toEqual([{ type: "text", text: "All done." }]);
    expect(first.stopReason).toBe("end_turn");
    expect(second.content).toHaveLength(2);
    expect(second.content[1]).toMatchObject({ id: "toolu_text_1_1", name: "bash" });
  });
});
