import { describe, expect, test } from "vitest";
import { recordedRun } from "../../src/replay/recorded-run.js";
import type { McpServerConfig } from "../../src/tools/mcp-tools.js";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/tools/sandbox.js";
import { type InitInfo, initLine } from "../../src/transcript/init-line.js";
import type { TranscriptLine } from "../../src/transcript/line-schemas.js";
import { anthropicProvider } from "../helpers/providers.js";

const SERVER: McpServerConfig = {
  name: "tickets",
  command: "/srv/tickets.mjs",
  args: ["--db", "t.json"],
  env: { TICKET_DB: "t.json" },
  tools: ["lookup"],
  startupTimeoutMs: 5_000,
  timeoutMs: 9_000,
};
const SCHEMA = { type: "object", properties: { id: { type: "string" } } };

const INFO: InitInfo = {
  agentRunVersion: "0.1.0",
  model: "claude-sonnet-5-5",
  system: "You are a coding agent.",
  tools: ["bash"],
  mcpServers: [
    {
      name: "tickets",
      status: "connected",
      serverInfo: { name: "ticket-server", version: "1.0.0" },
      tools: [{ name: "lookup", description: "Look up.", inputSchema: SCHEMA }],
      notes: [],
    },
  ],
  task: {
    name: "t",
    instanceId: "t",
    file: "t.yaml",
    prompt: "Go.",
    system: undefined,
    provider: anthropicProvider(),
    toolProtocol: "native",
    reasoning: undefined,
    limits: {
      maxSteps: 5,
      maxTokens: 1000,
      maxOutputTokens: 100,
      timeoutMs: 1000,
      maxCostUsd: undefined,
      maxRepeatedCalls: 5,
      maxContextTokens: 1000,
    },
    tools: ["bash"],
    subagents: { maxSteps: 20, maxDepth: 1 },
    commandTools: [],
    bash: {
      timeoutMs: 1000,
      env: {},
      allow: [],
      deny: [],
      flagAllow: [],
      flagDeny: [],
      maxOutputChars: 10,
      maxRecordedChars: 10,
    },
    mcpServers: [SERVER],
    sandbox: "none",
    sandboxLimits: DEFAULT_SANDBOX_LIMITS,
    allowGitChanges: false,
    replies: undefined,
    checks: [],
    output: undefined,
  },
  workspace: { source: "/src", path: "/runs/t/workspace", inPlace: false, contentHash: null },
  offline: true,
  origin: undefined,
};

type Line = Record<string, unknown>;

/** A transcript: the init line (edited by `edit`), then `lines`, with the fields every line has. */
function transcript(edit: (init: Line) => void = () => {}, lines: Line[] = []) {
  const init: Line = { ...initLine(INFO), session_id: "s", uuid: "u", at: "t" };
  edit(init);
  return [init, ...lines] as unknown as TranscriptLine[];
}

function toolResult(step: number, toolName: string, id: string, content: string): Line {
  return {
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
    parent_tool_use_id: null,
    step,
    tool_name: toolName,
    session_id: "s",
    uuid: `u${step}${id}`,
    at: "t",
  };
}

describe("the MCP servers of a recorded run", () => {
  test("the declared servers, the tools offered and the MCP results read back", () => {
    const run = recordedRun(
      "/runs/t/transcript.jsonl",
      transcript(undefined, [
        toolResult(1, "mcp__tickets__lookup", "toolu_1", "T-1: open"),
        toolResult(1, "bash", "toolu_2", "ok\n[exit code: 0]"),
      ]),
    );

    expect(run.task.mcpServers).toEqual([SERVER]);
    expect(run.mcpTools).toEqual(
      new Map([["tickets", [{ name: "lookup", description: "Look up.", inputSchema: SCHEMA }]]]),
    );
    expect(run.mcpCalls).toEqual([
      { toolUseId: "toolu_1", step: 1, content: "T-1: open", isError: false },
    ]);
  });

  test("entries that do not read as a server or a tool are left out", () => {
    const run = recordedRun(
      "/runs/t/transcript.jsonl",
      transcript((init) => {
        init.mcp_servers = [
          { name: "a__b", status: "connected", tools: [] },
          {
            name: "tickets",
            status: "connected",
            tools: [
              { name: "bad name", description: "", input_schema: {} },
              { name: "lookup", description: 3, input_schema: {} },
              { name: "ok", description: "Fine.", input_schema: SCHEMA },
            ],
          },
        ];
      }),
    );

    expect([...run.mcpTools.keys()]).toEqual(["tickets"]);
    expect(run.mcpTools.get("tickets")?.map((tool) => tool.name)).toEqual(["ok"]);
  });

  test("a transcript from before MCP servers has none", () => {
    const run = recordedRun(
      "/runs/t/transcript.jsonl",
      transcript((init) => {
        init.mcp_servers = [];
        delete (init.task as Line).mcp_servers;
      }),
    );

    expect(run.task.mcpServers).toEqual([]);
    expect(run.mcpTools.size).toBe(0);
  });

  test("a recorded server that is not one is refused, naming the field", () => {
    const lines = transcript((init) => {
      ((init.task as Line).mcp_servers as Line[])[0] = { ...SERVER, name: "../x" };
    });

    expect(() => recordedRun("/runs/t/transcript.jsonl", lines)).toThrow(
      /:1: the init line does not describe the task fully \(mcp_servers\.0\.name: /,
    );
  });
});
