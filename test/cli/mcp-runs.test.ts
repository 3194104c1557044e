import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { BUNDLED_TICKET_SERVER, bundleTicketServer } from "../helpers/mcp-fixture.js";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Runs of the CLI whose task declares an MCP server (fixtures/mcp/ticket-server.mjs, started for
// real), with the model's replies scripted through msw; then each transcript replayed offline,
// with no server running.

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };
const SERVER = resolve("fixtures/mcp/ticket-server.mjs");
const TICKETS = `${JSON.stringify({ "T-1": { title: "Rude", status: "open", description: "Say Hello." } })}\n`;

type Line = Record<string, unknown>;

/** A folder with a workspace holding tickets.json and a task whose server writes its pid. */
async function setup(serverArgs: string[] = [], extra = ""): Promise<TmpWorkspace> {
  const dir = await tmpWorkspace({ files: { "ws/tickets.json": TICKETS } });
  const args = [SERVER, "--pid-file", dir.path("server.pid"), ...serverArgs];
  await writeFile(
    dir.path("task.yaml"),
    [
      "name: t",
      "prompt: Fix ticket T-1.",
      "workspace: ws",
      "mcp_servers:",
      "  tickets:",
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: ${JSON.stringify(args)}`,
      extra,
    ].join("\n"),
  );
  return dir;
}

async function run(dir: TmpWorkspace, ...flags: string[]) {
  return runCli([dir.path("task.yaml"), "--out", dir.path("out"), ...flags], { env: KEY });
}

/** `agent-run replay --strict` of the run, offline; the server's pid file is removed first. */
async function replay(dir: TmpWorkspace) {
  await rm(dir.path("server.pid"), { force: true });
  const replayed = await runCli([
    "replay",
    "--strict",
    dir.path("out/t/transcript.jsonl"),
    "--out",
    dir.path("replays"),
  ]);
  return { ...replayed, lines: await readTranscript(dir.path("replays/t")) };
}

const results = (lines: Line[]) =>
  lines
    .filter((line) => typeof line.tool_name === "string")
    .map((line) => {
      const [block] = (line.message as { content: Array<{ content: string; is_error?: boolean }> })
        .content;
      return { tool: line.tool_name, content: block?.content, isError: block?.is_error === true };
    });

describe("a run with an MCP server", () => {
  test("offers its tools, records its calls and status; the replay serves them with no server", async () => {
    await using dir = await setup();
    server.queue(
      reply().text("Reading it.").toolUse("mcp__tickets__lookup_ticket", { id: "T-1" }),
      reply()
        .toolUse("mcp__tickets__close_ticket", { id: "T-1", resolution: "done" })
        .toolUse("mcp__tickets__show_env", { name: "ANTHROPIC_API_KEY" }),
      reply().text("Closed T-1."),
    );

    const first = await run(dir);

    expect(first.exitCode, first.stderr).toBe(0);
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({
      tools: expect.arrayContaining(["bash", "mcp__tickets__lookup_ticket", "mcp__tickets__crash"]),
      mcp_servers: [
        {
          name: "tickets",
          status: "connected",
          serverInfo: { name: "ticket-server", version: "1.0.0" },
          tools: expect.arrayContaining([
            expect.objectContaining({ name: "lookup_ticket", input_schema: expect.any(Object) }),
          ]),
        },
      ],
      task: {
        mcp_servers: [
          {
            name: "tickets",
            command: process.execPath,
            tools: null,
            startup_timeout_ms: 30_000,
            timeout_ms: 60_000,
          },
        ],
      },
    });
    const sentTools = (server.requests[0]?.tools ?? []) as Array<{ name: string }>;
    expect(sentTools.map((tool) => tool.name).slice(-2)).toEqual([
      "mcp__tickets__stats",
      "mcp__tickets__spawn_child",
    ]);
    expect(results(lines)).toEqual([
      {
        tool: "mcp__tickets__lookup_ticket",
        content: "T-1: Rude [open]\nSay Hello.",
        isError: false,
      },
      { tool: "mcp__tickets__close_ticket", content: "T-1 closed", isError: false },
      // The server gets the command environment: never the API key.
      { tool: "mcp__tickets__show_env", content: "(unset)", isError: false },
    ]);
    expect((await readSummary(dir.path("out/t"))).changed_files).toMatchObject([
      { path: "tickets.json", status: "modified" },
    ]);
    expect(await waitUntilGone(await readPidFile(dir.path("server.pid")))).toBe(true);
    expect(first.stderr).not.toContain("ticket-server: ready");

    const replayed = await replay(dir);

    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect(replayed.stderr).toMatch(/replay: no divergence/);
    expect(existsSync(dir.path("server.pid"))).toBe(false);
    expect(replayed.lines[0]).toMatchObject({
      mcp_servers: [{ name: "tickets", status: "replayed" }],
      tools: expect.arrayContaining(["mcp__tickets__close_ticket"]),
    });
    expect(results(replayed.lines)).toEqual(results(lines));
    expect(replayed.lines.filter((line) => line.from_recording === true)).toHaveLength(3);
  });

  test("a server that crashes mid-call: a clear error, later calls fail at once; the replay agrees", async () => {
    await using dir = await setup();
    server.queue(
      reply().toolUse("mcp__tickets__crash", {}),
      reply().toolUse("mcp__tickets__lookup_ticket", { id: "T-1" }),
      reply().text("The ticket server is down."),
    );

    const first = await run(dir);

    expect(first.exitCode, first.stderr).toBe(0);
    const lines = await readTranscript(dir.path("out/t"));
    expect(results(lines)).toEqual([
      {
        tool: "mcp__tickets__crash",
        content: [
          'mcp__tickets__crash: MCP server "tickets" exited with code 3 during the call, so its tools cannot be called for the rest of the run; its last stderr lines:',
          "  ticket-server: ready",
          "  ticket-server: segmentation fault in the ticket index",
        ].join("\n"),
        isError: true,
      },
      {
        tool: "mcp__tickets__lookup_ticket",
        content: expect.stringMatching(
          /^mcp__tickets__lookup_ticket: MCP server "tickets" exited with code 3 earlier, so its tools/,
        ),
        isError: true,
      },
    ]);
    expect(lines.at(-1)).toMatchObject({ status: "completed" });

    const replayed = await replay(dir);

    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect(results(replayed.lines)).toEqual(results(lines));
  });

  test("a server that fails to start: failed in the init line, its tools not offered; the replay agrees", async () => {
    await using dir = await setup(["--exit-at-once"]);
    server.queue(
      reply().toolUse("mcp__tickets__lookup_ticket", { id: "T-1" }),
      reply().text("No ticket tools."),
    );

    const first = await run(dir);

    expect(first.exitCode, first.stderr).toBe(0);
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({
      mcp_servers: [
        {
          name: "tickets",
          status: "failed",
          error:
            "exited with code 1 before it was ready; its last stderr lines:\n  ticket-server: cannot open the ticket database",
          tools: [],
        },
      ],
    });
    expect(lines[0]?.tools).not.toContain("mcp__tickets__lookup_ticket");
    expect(results(lines)).toEqual([
      {
        tool: "mcp__tickets__lookup_ticket",
        content: expect.stringMatching(/^unknown tool "mcp__tickets__lookup_ticket"; the tools/),
        isError: true,
      },
    ]);

    const replayed = await replay(dir);

    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect(replayed.lines[0]).toMatchObject({
      mcp_servers: [{ name: "tickets", status: "replayed", tools: [] }],
    });
  });

  test("a fork serves the recorded calls and starts the server for the calls after them", async () => {
    await using dir = await setup();
    server.queue(
      reply().toolUse("mcp__tickets__lookup_ticket", { id: "T-1" }),
      reply().text("Done."),
    );
    expect((await run(dir)).exitCode).toBe(0);
    await rm(dir.path("server.pid"));
    server.queue(reply().toolUse("mcp__tickets__stats", {}), reply().text("Counted."));

    const fork = await runCli(
      [
        "replay",
        dir.path("out/t/transcript.jsonl"),
        "--until-step",
        "1",
        "--continue",
        "--out",
        dir.path("forks"),
      ],
      { env: KEY },
    );

    expect(fork.exitCode, fork.stderr).toBe(0);
    const lines = await readTranscript(dir.path("forks/t"));
    expect(lines[0]).toMatchObject({ mcp_servers: [{ status: "connected" }] });
    expect(results(lines)).toEqual([
      {
        tool: "mcp__tickets__lookup_ticket",
        content: "T-1: Rude [open]\nSay Hello.",
        isError: false,
      },
      { tool: "mcp__tickets__stats", content: '{\n  "open": 1,\n  "closed": 0\n}', isError: false },
    ]);
    expect(lines.filter((line) => line.from_recording === true).map((line) => line.step)).toEqual([
      1,
    ]);
    expect(await waitUntilGone(await readPidFile(dir.path("server.pid")))).toBe(true);
  });

  test("the task's timeout in the middle of a call ends the run, and stops the server", async () => {
    await using dir = await setup([], "limits: { timeout: 1s }\n");
    server.queue(reply().toolUse("mcp__tickets__slow", { ms: 60_000 }));

    const first = await run(dir);

    expect(first.exitCode).toBe(1);
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines.at(-1)).toMatchObject({ status: "timeout" });
    expect(lines.find((line) => line.tool_name === "mcp__tickets__slow")).toMatchObject({
      interrupted: true,
      message: {
        content: [
          {
            content: "mcp__tickets__slow: cancelled: the task's time limit was reached",
            is_error: true,
          },
        ],
      },
    });
    expect(await waitUntilGone(await readPidFile(dir.path("server.pid")))).toBe(true);
  });
});

describe.skipIf(!shouldRunSandboxTests())("a run with an MCP server under bubblewrap", () => {
  test("the server runs in the sandbox, writes the workspace, and the run replays", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/tickets.json": TICKETS } });
    const outside = join(homedir(), `agent-run-mcp-${process.pid}.json`);
    // The server as one file in the workspace (a checkout under /tmp is hidden in the sandbox);
    // the run's copy has it too, and the server starts in that copy.
    await bundleTicketServer(dir.path("ws"));
    await writeFile(
      dir.path("task.yaml"),
      `name: t\nprompt: Close T-1.\nworkspace: ws\nsandbox: bwrap\nmcp_servers:\n  tickets: { command: ${JSON.stringify(process.execPath)}, args: [${BUNDLED_TICKET_SERVER}], tools: [close_ticket, export_tickets] }\n`,
    );
    server.queue(
      reply()
        .toolUse("mcp__tickets__close_ticket", { id: "T-1", resolution: "done" })
        .toolUse("mcp__tickets__export_tickets", { path: outside }),
      reply().text("Closed."),
    );

    const first = await runCli([dir.path("task.yaml"), "--out", dir.path("out")], { env: KEY });

    expect(first.exitCode, first.stderr).toBe(0);
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({
      mcp_servers: [{ status: "connected" }],
      task: { sandbox: "bwrap" },
    });
    expect(results(lines)).toEqual([
      { tool: "mcp__tickets__close_ticket", content: "T-1 closed", isError: false },
      { tool: "mcp__tickets__export_tickets", content: "cannot export: EROFS", isError: true },
    ]);
    expect(existsSync(outside)).toBe(false);
    const replayed = await runCli([
      "replay",
      "--strict",
      dir.path("out/t/transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);
    expect(replayed.exitCode, replayed.stderr).toBe(0);
  });
});
