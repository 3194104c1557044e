import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { ToolContext } from "../../src/tools/define-tool.js";
import { type McpSession, startMcpServers } from "../../src/tools/mcp-servers.js";
import type { McpServerConfig } from "../../src/tools/mcp-tools.js";
import { bundleTicketServer } from "../helpers/mcp-fixture.js";
import { isRunning, readPidFile, waitUntilGone } from "../helpers/processes.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

const SERVER = resolve("fixtures/mcp/ticket-server.mjs");
const TICKETS = JSON.stringify({
  "T-1": { title: "Greeting is rude", status: "open", description: "Say Hello, not Hi." },
});
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: homedir() };

function config(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: "tickets",
    command: process.execPath,
    args: [SERVER],
    env: {},
    tools: undefined,
    startupTimeoutMs: 20_000,
    timeoutMs: 20_000,
    ...overrides,
  };
}

let session: McpSession | undefined;
let workspace: TmpWorkspace | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await workspace?.[Symbol.asyncDispose]();
  workspace = undefined;
});

/** This test's workspace, made with the tickets on first use. */
async function useWorkspace(): Promise<TmpWorkspace> {
  workspace ??= await tmpWorkspace({ files: { "tickets.json": TICKETS } });
  return workspace;
}

async function start(
  configs: McpServerConfig[],
  options: { sandbox?: "bwrap"; signal?: AbortSignal } = {},
): Promise<McpSession> {
  const ws = await useWorkspace();
  session = await startMcpServers(configs, {
    workspaceRoot: ws.root,
    env,
    sandbox: options.sandbox ?? "none",
    signal: options.signal ?? new AbortController().signal,
  });
  return session;
}

const ctx = (signal = new AbortController().signal): ToolContext => ({
  workspaceRoot: workspace?.root ?? "/nonexistent",
  signal,
  toolUseId: "toolu_1",
});

describe("startMcpServers: a server that starts", () => {
  test("is connected, with its server info and every tool it lists (their specs as listed)", async () => {
    const { servers } = await start([config()]);

    expect(servers).toHaveLength(1);
    expect(servers[0]).toMatchObject({
      name: "tickets",
      status: "connected",
      serverInfo: { name: "ticket-server", version: "1.0.0" },
      notes: [],
    });
    expect(servers[0]?.tools.map((tool) => tool.name)).toEqual([
      "lookup_ticket",
      "close_ticket",
      "export_tickets",
      "crash",
      "slow",
      "show_env",
      "attachments",
      "stats",
      "spawn_child",
    ]);
    expect(servers[0]?.tools[0]).toEqual({
      name: "lookup_ticket",
      description: "Look up a ticket by its id (T-1, T-2, ...): title, status and description.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", description: "The ticket id, e.g. T-1" } },
        required: ["id"],
      },
    });
  });

  test("offers only the allow-listed tools, and notes a listed one the server does not have", async () => {
    const { servers } = await start([config({ tools: ["lookup_ticket", "lookup"] })]);

    expect(servers[0]?.tools.map((tool) => tool.name)).toEqual(["lookup_ticket"]);
    expect(servers[0]?.notes).toEqual(['"lookup" is in tools: but the server does not offer it']);
  });

  test("leaves out a tool whose full name the API would refuse, saying so", async () => {
    const { servers } = await start([config({ args: [SERVER, "--extra-tools"] })]);

    const names = servers[0]?.tools.map((tool) => tool.name) ?? [];
    expect(names).not.toContain("bad.name");
    expect(servers[0]?.notes).toEqual([
      `"bad.name" left out: its full name "mcp__tickets__bad.name" is not 1 to 64 letters, digits, '_' or '-'`,
      `"${"a".repeat(60)}" left out: its full name "mcp__tickets__${"a".repeat(60)}" is not 1 to 64 letters, digits, '_' or '-'`,
    ]);
  });

  test("skips lines on stdout that are not JSON-RPC", async () => {
    const mcp = await start([config({ args: [SERVER, "--stdout-noise"] })]);

    expect(mcp.servers[0]?.status).toBe("connected");
    expect((await mcp.callTool("tickets", "lookup_ticket", { id: "T-1" }, ctx())).isError).toBe(
      false,
    );
  });

  test("calls a tool: its text, and the server's own error results as errors", async () => {
    const mcp = await start([config()]);

    expect(await mcp.callTool("tickets", "lookup_ticket", { id: "T-1" }, ctx())).toEqual({
      content: "T-1: Greeting is rude [open]\nSay Hello, not Hi.",
      isError: false,
    });
    expect(await mcp.callTool("tickets", "lookup_ticket", { id: "T-9" }, ctx())).toEqual({
      content: "no ticket T-9",
      isError: true,
    });
    const lookup = mcp.tools.find((tool) => tool.name === "mcp__tickets__lookup_ticket");
    expect(lookup?.inputSchema).toEqual(mcp.servers[0]?.tools[0]?.inputSchema);
    expect(await lookup?.execute({ id: "T-1" }, ctx())).toMatchObject({ isError: false });
    expect(await mcp.callTool("tickets", "lookup_ticket", ["T-1"], ctx())).toEqual({
      content:
        "mcp__tickets__lookup_ticket: the input must be a JSON object; re-send the call with an object",
      isError: true,
    });
  });

  test("binary content becomes placeholders, and structured content JSON when there is no text", async () => {
    const mcp = await start([config()]);

    const attachments = await mcp.callTool("tickets", "attachments", {}, ctx());
    const stats = await mcp.callTool("tickets", "stats", {}, ctx());

    expect(attachments.content).toBe(
      [
        "Two files are attached.",
        "[image: image/png, 2.93 KiB; not shown]",
        "[resource file:///logs/app.log, text/plain, 13 characters]",
        "line 1",
        "line 2",
        "[resource file:///a.bin, 10 bytes; not shown]",
        "[resource link README: file:///docs/README.md]",
      ].join("\n"),
    );
    expect(stats).toEqual({ content: '{\n  "open": 1,\n  "closed": 0\n}', isError: false });
  });

  test("the server gets exactly the command environment and its own env: nothing inherited", async () => {
    process.env.AGENT_RUN_MCP_TEST_SECRET = "inherited";
    try {
      const mcp = await start([config({ env: { TICKET_DB: "tickets.json" } })]);
      const show = async (name: string) =>
        (await mcp.callTool("tickets", "show_env", { name }, ctx())).content;

      expect(await show("TICKET_DB")).toBe("tickets.json");
      expect(await show("HOME")).toBe(homedir());
      expect(await show("AGENT_RUN_MCP_TEST_SECRET")).toBe("(unset)");
    } finally {
      delete process.env.AGENT_RUN_MCP_TEST_SECRET;
    }
  });
});

describe("startMcpServers: servers that fail", () => {
  test("a crash in the middle of a call ends it at once with the exit code and stderr; later calls fail fast", async () => {
    const mcp = await start([config()]);

    const crashed = await mcp.callTool("tickets", "crash", {}, ctx());
    const startedAt = performance.now();
    const later = await mcp.callTool("tickets", "lookup_ticket", { id: "T-1" }, ctx());

    expect(crashed).toEqual({
      content: [
        'mcp__tickets__crash: MCP server "tickets" exited with code 3 during the call, so its tools cannot be called for the rest of the run; its last stderr lines:',
        "  ticket-server: ready",
        "  ticket-server: segmentation fault in the ticket index",
      ].join("\n"),
      isError: true,
    });
    expect(later.isError).toBe(true);
    expect(later.content).toMatch(
      /^mcp__tickets__lookup_ticket: MCP server "tickets" exited with code 3 earlier, so its tools cannot be called/,
    );
    expect(performance.now() - startedAt).toBeLessThan(500);
  });

  test("a server that exits at once is failed, with its exit code and stderr; its tools answer with that", async () => {
    const mcp = await start([config({ args: [SERVER, "--exit-at-once"] }), config({ name: "ok" })]);

    expect(mcp.servers.map((server) => [server.name, server.status])).toEqual([
      ["tickets", "failed"],
      ["ok", "connected"],
    ]);
    expect(mcp.servers[0]).toEqual({
      name: "tickets",
      status: "failed",
      error:
        "exited with code 1 before it was ready; its last stderr lines:\n  ticket-server: cannot open the ticket database",
      tools: [],
      notes: [],
    });
    expect(await mcp.callTool("tickets", "lookup_ticket", { id: "T-1" }, ctx())).toEqual({
      content: `mcp__tickets__lookup_ticket: MCP server "tickets" is not running: ${mcp.servers[0]?.error}`,
      isError: true,
    });
  });

  test("a command that does not exist is failed, saying so", async () => {
    const { servers } = await start([config({ command: "agent-run-no-such-server", args: [] })]);

    expect(servers[0]?.status).toBe("failed");
    expect(servers[0]?.error).toMatch(/^could not start "agent-run-no-such-server": .*ENOENT/);
  });

  test("a server that never answers initialize fails at its startup timeout, and is killed", async () => {
    const pidFile = (await useWorkspace()).path("server.pid");
    const startedAt = performance.now();
    const { servers } = await start([
      config({
        args: [SERVER, "--never-initialize", "--pid-file", pidFile],
        startupTimeoutMs: 500,
      }),
    ]);

    expect(performance.now() - startedAt).toBeLessThan(5_000);
    expect(servers[0]).toMatchObject({
      status: "failed",
      error:
        "did not answer initialize and tools/list within 500ms (startup_timeout); its last stderr lines:\n  ticket-server: loading the ticket index",
    });
    expect(await waitUntilGone(await readPidFile(pidFile))).toBe(true);
  });

  test("a call past its timeout is an error result; the server goes on answering", async () => {
    const mcp = await start([config({ timeoutMs: 300 })]);

    const slow = await mcp.callTool("tickets", "slow", { ms: 5_000 }, ctx());
    const next = await mcp.callTool("tickets", "lookup_ticket", { id: "T-1" }, ctx());

    expect(slow).toEqual({
      content:
        "mcp__tickets__slow: no answer within 300ms; the call was cancelled (the server still runs)",
      isError: true,
    });
    expect(next.isError).toBe(false);
  });

  test("a call cancelled by the run ends at once", async () => {
    const mcp = await start([config()]);
    const controller = new AbortController();

    const call = mcp.callTool("tickets", "slow", { ms: 10_000 }, ctx(controller.signal));
    setTimeout(() => controller.abort("timeout"), 100);

    expect(await call).toEqual({
      content: "mcp__tickets__slow: cancelled: the task's time limit was reached",
      isError: true,
    });
  });

  test("a run cancelled before the servers start starts none", async () => {
    const controller = new AbortController();
    controller.abort("cancelled");

    const { servers } = await start([config()], { signal: controller.signal });

    expect(servers[0]).toMatchObject({
      status: "failed",
      error: "not started: the run was cancelled",
    });
  });
});

describe("a server that floods agent-run with requests and stops reading", () => {
  test("is cut off once agent-run's unread answers pass 1 MiB: the call ends, and closing is prompt", async () => {
    const flood = config({
      name: "flood",
      args: [resolve("fixtures/mcp/flood-server.mjs")],
      timeoutMs: 60_000,
    });
    const mcp = await start([flood]);

    const result = await mcp.callTool("flood", "flood", {}, ctx());
    const again = await mcp.callTool("flood", "flood", {}, ctx());
    await mcp.close();

    expect(result).toEqual({
      content:
        'mcp__flood__flood: MCP server "flood" stopped reading what agent-run sent it (over 1 MiB unread), so agent-run closed its connection during the call; its tools cannot be called for the rest of the run',
      isError: true,
    });
    expect(again.content).toMatch(/so agent-run closed its connection earlier;/);
  });
});

describe("McpSession.close", () => {
  test("stops the server and everything it started", async () => {
    const ws = await useWorkspace();
    const pidFile = ws.path("server.pid");
    const mcp = await start([config({ args: [SERVER, "--pid-file", pidFile] })]);
    await mcp.callTool("tickets", "spawn_child", {}, ctx());
    const server = await readPidFile(pidFile);
    const child = await readPidFile(ws.path("child.pid"));
    expect(await isRunning(child)).toBe(true);

    await mcp.close();

    expect(await waitUntilGone(server)).toBe(true);
    expect(await waitUntilGone(child)).toBe(true);
  });
});

describe.skipIf(!shouldRunSandboxTests())("MCP servers under bubblewrap", () => {
  // The server as one file in the workspace: a checkout under /tmp is hidden in the sandbox.
  const sandboxed = async (overrides: Partial<McpServerConfig> = {}) =>
    config({ args: [await bundleTicketServer((await useWorkspace()).root)], ...overrides });

  test("start in the workspace, can change it, and leave nothing behind", async () => {
    const mcp = await start([await sandboxed()], { sandbox: "bwrap" });

    const closed = await mcp.callTool(
      "tickets",
      "close_ticket",
      { id: "T-1", resolution: "fixed" },
      ctx(),
    );
    await mcp.callTool("tickets", "spawn_child", {}, ctx());
    const child = await readFile((await useWorkspace()).path("child.pid"), "utf8");
    await mcp.close();

    expect(mcp.servers[0]?.status).toBe("connected");
    expect(closed).toEqual({ content: "T-1 closed", isError: false });
    expect(
      JSON.parse(await readFile((await useWorkspace()).path("tickets.json"), "utf8")),
    ).toMatchObject({
      "T-1": { status: "closed", resolution: "fixed" },
    });
    // Its pid is the sandbox's own (a pid namespace): nothing of that name runs outside.
    expect(child).toMatch(/^\d+\n$/);
  });

  test("can write the workspace, not outside it, and gets the command environment", async () => {
    const outside = resolve(homedir(), `agent-run-mcp-${process.pid}.json`);
    const mcp = await start([await sandboxed({ env: { TICKET_DB: "x" } })], { sandbox: "bwrap" });
    const call = (tool: string, input: Record<string, unknown>) =>
      mcp.callTool("tickets", tool, input, ctx());

    expect(await call("export_tickets", { path: "export.json" })).toEqual({
      content: "exported to export.json",
      isError: false,
    });
    expect(await call("export_tickets", { path: outside })).toEqual({
      content: "cannot export: EROFS",
      isError: true,
    });
    expect(await call("show_env", { name: "TICKET_DB" })).toEqual({ content: "x", isError: false });
    expect(await call("show_env", { name: "TMPDIR" })).toEqual({ content: "/tmp", isError: false });
  });
});
