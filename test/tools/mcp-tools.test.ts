import { describe, expect, test } from "vitest";
import { resultText } from "../../src/tools/mcp-content.js";
import {
  createRecordedResults,
  MAX_TOOLS_PER_SERVER,
  mcpTools,
  replayedCall,
  selectTools,
} from "../../src/tools/mcp-tools.js";

const schema = { type: "object", properties: {} };
const ctx = (toolUseId?: string) => ({
  workspaceRoot: "/ws",
  signal: new AbortController().signal,
  ...(toolUseId === undefined ? {} : { toolUseId }),
});

describe("selectTools", () => {
  test("keeps a name listed twice once, cuts descriptions, drops $schema", () => {
    const { tools, notes } = selectTools({ name: "s", tools: undefined }, [
      {
        name: "a",
        description: "x".repeat(5_000),
        inputSchema: { $schema: "draft-07", ...schema },
      },
      { name: "a", description: "second", inputSchema: schema },
    ]);

    expect(tools).toHaveLength(1);
    expect(tools[0]?.description).toMatch(/^x{2048}… \(2952 more chars\)$/);
    expect(tools[0]?.inputSchema).toEqual(schema);
    expect(notes).toEqual([]);
  });

  test("leaves out schemas too large or too deep, and tools past the per-server bound", () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { items: deep };
    const many = Array.from({ length: MAX_TOOLS_PER_SERVER + 2 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: schema,
    }));

    const { tools, notes } = selectTools({ name: "s", tools: undefined }, [
      { name: "big", inputSchema: { ...schema, description: "y".repeat(70_000) } },
      { name: "deep", inputSchema: deep },
      ...many,
    ]);

    expect(tools).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(notes).toEqual([
      '"big" left out: its input schema is larger than 65536 characters',
      '"deep" left out: its input schema nests deeper than 32 levels',
      `"t${MAX_TOOLS_PER_SERVER}" left out: past ${MAX_TOOLS_PER_SERVER} tools`,
      `"t${MAX_TOOLS_PER_SERVER + 1}" left out: past ${MAX_TOOLS_PER_SERVER} tools`,
    ]);
  });
});

describe("mcpTools", () => {
  const specs = [{ name: "lookup", description: "Look up.", inputSchema: schema }];

  test("names each tool mcp__<server>__<tool> and calls the server with its own name", async () => {
    const calls: string[] = [];
    const [tool] = mcpTools("tickets", specs, async (server, name) => {
      calls.push(`${server}/${name}`);
      return { content: "live", isError: false };
    });

    expect(tool?.name).toBe("mcp__tickets__lookup");
    expect(await tool?.execute({}, ctx("toolu_2"))).toEqual({ content: "live", isError: false });
    expect(calls).toEqual(["tickets/lookup"]);
  });

  test("serves recorded results by tool_use id, each once and in order, and calls the server for any other", async () => {
    const results = new Map([
      [
        "call_0",
        [
          { content: "first", isError: true },
          { content: "second", isError: false },
        ],
      ],
    ]);
    const recorded = createRecordedResults({ results, tools: new Map(), isLive: false });
    const [tool] = mcpTools("tickets", specs, replayedCall, recorded);

    expect(await tool?.execute({}, ctx("call_0"))).toEqual({
      content: "first",
      isError: true,
      isFromRecording: true,
    });
    expect(await tool?.execute({}, ctx("call_0"))).toMatchObject({ content: "second" });
    expect((await tool?.execute({}, ctx("call_0")))?.isFromRecording).toBeUndefined();
    expect(await tool?.execute({}, ctx("toolu_9"))).toEqual({
      content:
        "mcp__tickets__lookup: the recording has no result for this call (toolu_9), and MCP servers do not run in a replay",
      isError: true,
    });
  });
});

describe("resultText", () => {
  test("cuts long text in the middle, and says when there is no content", () => {
    const long = resultText(
      {
        content: [{ type: "text", text: "a".repeat(100) }],
        structuredContent: undefined,
        isError: false,
      },
      20,
    );
    const empty = resultText({ content: [], structuredContent: undefined, isError: false }, 20);

    expect(long).toBe(`${"a".repeat(10)}\n[... 80 characters cut ...]\n${"a".repeat(10)}`);
    expect(empty).toBe("(no content)");
  });

  test("shows controls in a server's strings as \\xNN and never nests structured content past the bound", () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { a: deep };

    const text = resultText(
      {
        content: [{ type: "image", data: "AAAA", mimeType: "image/png\u001b[2J" }],
        structuredContent: deep,
        isError: false,
      },
      1_000,
    );

    expect(text).toBe(
      "[image: image/png\\x1b[2J, 3 bytes; not shown]\n[structured content nested deeper than 64 levels; not shown]",
    );
  });
});
