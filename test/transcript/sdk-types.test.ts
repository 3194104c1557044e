import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RunStatus } from "../../src/agent/events.js";
import { parseTranscript } from "../../src/transcript/reader.js";
import { type MockHttpServer, startMockHttpServer } from "../helpers/mock-http-server.js";
import { callDelta, chunk, usageChunk } from "../helpers/openai-chunks.js";
import { startOpenAIHttpServer } from "../helpers/openai-http-server.js";
import { readPidFile } from "../helpers/processes.js";
import { httpError, type ReplyBuilder, reply } from "../helpers/replies.js";
import { type CheckedFile, typeCheck } from "../helpers/sdk-type-check.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Real transcripts of every way a run ends, written by the built binary, type-checked against
// the Agent SDK's message types (@anthropic-ai/claude-agent-sdk 0.3.x). docs/transcript.md's
// table says which SDK type each line kind is, and which kinds are agent-run's own.

type Line = Record<string, unknown>;

/** The MCP server the `mcp` scenario starts (fixtures/mcp/ticket-server.mjs). */
const MCP_SERVER = resolve("fixtures/mcp/ticket-server.mjs");

/** A spawned run: its task file's extra YAML, what the mock API serves, and the status it must end with. */
type Scenario = {
  name: string;
  status: RunStatus;
  task?: string;
  replies?: Array<ReplyBuilder | ReturnType<typeof httpError>>;
};

const SCENARIOS: Scenario[] = [
  {
    name: "completed",
    status: "completed",
    task: "checks:\n  - file_exists: a.txt\n",
    replies: [
      reply().text("Looking.").toolUse("bash", { command: "cat a.txt" }),
      reply().text("Done."),
    ],
  },
  {
    name: "max-steps",
    status: "max_steps",
    task: "limits: { max_steps: 1 }\n",
    replies: [reply().toolUse("list_files", { path: "." })],
  },
  {
    name: "max-tokens",
    status: "max_tokens",
    task: "limits: { max_tokens: 1000 }\n",
    replies: [reply().toolUse("list_files", { path: "." }).usage(5000, 10)],
  },
  {
    name: "max-cost",
    status: "max_cost",
    task: "limits: { max_cost_usd: 0.01 }\n",
    replies: [reply().toolUse("list_files", { path: "." }).usage(100_000, 1000)],
  },
  {
    name: "timeout",
    status: "timeout",
    task: "limits: { timeout: 1s }\n",
    replies: [reply().toolUse("bash", { command: "sleep 30" }).toolUse("list_files", {})],
  },
  {
    name: "api-error",
    status: "error",
    replies: [
      httpError(400, { type: "error", error: { type: "invalid_request_error", message: "bad" } }),
    ],
  },
  {
    name: "loop",
    status: "loop",
    task: "limits: { max_repeated_calls: 2 }\n",
    replies: [
      reply().toolUse("list_files", { path: "." }),
      reply().toolUse("list_files", { path: "." }),
    ],
  },
  {
    name: "protocol-error",
    status: "protocol_error",
    task: "tool_protocol: text\n",
    replies: [
      reply().text("tool: bash(ls)"),
      reply().text("tool: bash(ls)"),
      reply().text("tool: bash(ls)"),
    ],
  },
  {
    name: "structured-output",
    status: "completed",
    task: "output_schema: { type: object, required: [label] }\n",
    replies: [reply().text("It is a bug."), reply().text('{"label": "bug"}')],
  },
  {
    name: "invalid-output",
    status: "invalid_output",
    task: "output_schema: { type: object, required: [label] }\noutput_retries: 0\n",
    replies: [reply().text("{}")],
  },
  {
    name: "api-retry",
    status: "completed",
    replies: [
      httpError(529, undefined, { "retry-after-ms": "5" }),
      // No retry-after: the SDK picks its own backoff, which the line still gives as a number.
      httpError(503, undefined, { "x-should-retry": "true" }),
      reply().text("fine"),
    ],
  },
  {
    name: "context-trim",
    status: "completed",
    task: "context: { max_tokens: 4000 }\n",
    replies: [
      reply().toolUse("bash", { command: "seq 1 5000" }),
      reply().toolUse("bash", { command: "echo two" }),
      reply().text("Done."),
    ],
  },
  {
    name: "refused",
    status: "completed",
    replies: [reply().toolUse("bash", { command: "sudo true" }), reply().text("Could not.")],
  },
  {
    name: "plan",
    status: "completed",
    task: "tools: [bash, todo_write]\nchecks:\n  - plan_complete: true\n",
    replies: [
      reply().toolUse("todo_write", { todos: [{ content: "Look", status: "in_progress" }] }),
      reply().toolUse("todo_write", { todos: [{ content: "Look", status: "completed" }] }),
      reply().text("Done."),
    ],
  },
  {
    name: "subagent",
    status: "completed",
    task: "tools: [bash, read_file, task]\n",
    replies: [
      reply().toolUse("task", {
        description: "Read a",
        prompt: "Read a.txt",
        tools: ["read_file"],
      }),
      reply().toolUse("read_file", { path: "a.txt" }),
      reply().text("a.txt says hello."),
      reply().text("Done."),
    ],
  },
  {
    name: "subagent-limit",
    status: "max_tokens",
    task: "tools: [bash, task]\nlimits: { max_tokens: 1000 }\n",
    replies: [
      reply().toolUse("task", { description: "Look", prompt: "Look around" }),
      reply().toolUse("bash", { command: "ls" }).usage(5000, 10),
    ],
  },
  {
    name: "mcp",
    status: "completed",
    task: [
      "mcp_servers:",
      `  tickets: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MCP_SERVER)}], tools: [show_env, crash] }`,
      `  broken: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(MCP_SERVER)}, --exit-at-once] }`,
      "",
    ].join("\n"),
    replies: [
      reply().toolUse("mcp__tickets__show_env", { name: "HOME" }),
      reply().toolUse("mcp__tickets__crash", {}),
      reply().text("Done."),
    ],
  },
];

let dir: TmpWorkspace;
/** Each run's transcript lines, by run name. */
const transcripts = new Map<string, Line[]>();

async function runScenario(server: MockHttpServer, scenario: Scenario): Promise<void> {
  server.queue(...(scenario.replies ?? []));
  const task = dir.path(`${scenario.name}.yaml`);
  await writeFile(
    task,
    `name: ${scenario.name}\nprompt: Go.\nworkspace: ws\n${scenario.task ?? ""}`,
  );
  const run = await spawnCli([task, "--out", dir.path("out")], env(server));
  if (run.code === null)
    throw new Error(`${scenario.name}: killed by ${run.signal}\n${run.stderr}`);
  await readRun(scenario.name);
}

async function readRun(name: string): Promise<void> {
  const text = await readFile(dir.path(`out/${name}/transcript.jsonl`), "utf8");
  transcripts.set(
    name,
    text
      .trimEnd()
      .split("\n")
      .map((row) => JSON.parse(row) as Line),
  );
}

function env(server: MockHttpServer): Record<string, string> {
  return { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url };
}

/** A run cancelled by SIGTERM while its command runs. */
async function runCancelled(server: MockHttpServer): Promise<void> {
  server.queue(
    reply().toolUse("bash", { command: "echo $$ > pid.txt; sleep 60" }).toolUse("list_files", {}),
  );
  const task = dir.path("cancelled.yaml");
  await writeFile(task, "name: cancelled\nprompt: Wait.\nworkspace: ws\n");
  let kill = () => {};
  const done = spawnCli([task, "--out", dir.path("out")], env(server), {
    onSpawn: (child) => {
      kill = () => child.kill("SIGTERM");
    },
  });
  await readPidFile(dir.path("out/cancelled/workspace/pid.txt"));
  kill();
  await done;
  await readRun("cancelled");
}

/** An offline batch past its budget: one task stopped by it, the next skipped. */
async function runBudgetBatch(): Promise<void> {
  const costly = "  usage: { input_tokens: 100000, output_tokens: 10000 }\n";
  await writeFile(
    dir.path("costly.yaml"),
    `- content: [{ type: tool_use, name: list_files, input: {} }]\n${costly}`.repeat(2) +
      `- content: [{ type: text, text: done }]\n${costly}`,
  );
  for (const name of ["budget", "skipped"]) {
    await writeFile(
      dir.path(`${name}.yaml`),
      `name: ${name}\nprompt: Go.\nworkspace: ws\nmodel: claude-haiku-4-5\nreplies: costly.yaml\n`,
    );
  }
  const args = ["--offline", "-j", "1", "--budget-usd", "0.1", dir.path("budget.yaml")];
  await spawnCli([...args, dir.path("skipped.yaml"), "--out", dir.path("out")], {});
  await readRun("budget");
  await readRun("skipped");
}

/** A run against an OpenAI-format server: its replies are converted to the Messages API's shape. */
async function runOpenAI(): Promise<void> {
  await using server = await startOpenAIHttpServer();
  const usage = usageChunk({ prompt_tokens: 100, completion_tokens: 10 });
  server.queue(
    {
      chunks: [
        chunk({ role: "assistant", content: "Looking." }),
        chunk(callDelta({ index: 0, id: "call_1", name: "read_file", args: '{"path":"a.txt"}' })),
        chunk({}, "tool_calls"),
        usage,
      ],
    },
    { chunks: [chunk({ content: "Done." }), chunk({}, "stop"), usage] },
  );
  await writeFile(
    dir.path("openai.yaml"),
    `name: openai\nprompt: Go.\nworkspace: ws\nmodel: local-model\nprovider:\n  name: openai-compatible\n  base_url: ${server.baseURL}\n`,
  );
  await spawnCli([dir.path("openai.yaml"), "--out", dir.path("out")], {});
  await readRun("openai");
}

beforeAll(async () => {
  dir = await tmpWorkspace({ files: { "ws/a.txt": "hello\n" } });
  await using server = await startMockHttpServer();
  for (const scenario of SCENARIOS) await runScenario(server, scenario);
  await runCancelled(server);
  await runBudgetBatch();
  await runOpenAI();
}, 180_000);

afterAll(async () => {
  await dir[Symbol.asyncDispose]();
});

/** The line's kind as docs/transcript.md names it: `type`, or `system/<subtype>`. */
function kindOf(line: Line): string {
  return line.type === "system" ? `system/${String(line.subtype)}` : String(line.type);
}

/** docs/transcript.md's table of line kinds: each kind's SDK type, or null for agent-run's own. */
async function documentedKinds(): Promise<Map<string, string | null>> {
  const doc = await readFile("docs/transcript.md", "utf8");
  const section = doc.slice(doc.indexOf("## The Agent SDK's types"));
  const kinds = new Map<string, string | null>();
  for (const match of section.matchAll(/^\| `([a-z_/]+)` +\| (?:`(SDK\w+)`|agent-run's own) /gm)) {
    kinds.set(match[1] ?? "", match[2] ?? null);
  }
  return kinds;
}

/** The version-1 fixtures as the reader migrates them (see migrate-v1.test.ts). */
async function migratedV1(): Promise<Array<[string, Line[]]>> {
  const runs: Array<[string, Line[]]> = [];
  for (const name of ["v1-live", "v1-offline"]) {
    const file = `fixtures/transcripts/${name}.jsonl`;
    const text = (await readFile(file, "utf8")).replaceAll("@ROOT@", resolve("."));
    runs.push([name, parseTranscript(text, file)]);
  }
  return runs;
}

async function checkedFiles(): Promise<CheckedFile[]> {
  const kinds = await documentedKinds();
  return [...transcripts, ...(await migratedV1())].map(([name, lines]) => ({
    name,
    lines: lines.flatMap((line) => {
      const sdkType = kinds.get(kindOf(line));
      return sdkType === undefined || sdkType === null ? [] : [{ json: line, sdkType }];
    }),
  }));
}

describe("transcripts of every run ending, against the Agent SDK's message types", () => {
  test("each run ended as its scenario says", () => {
    const statuses = Object.fromEntries(
      [...transcripts].map(([name, lines]) => [name, lines.at(-1)?.status]),
    );

    expect(statuses).toEqual({
      ...Object.fromEntries(SCENARIOS.map((scenario) => [scenario.name, scenario.status])),
      cancelled: "cancelled",
      budget: "budget",
      skipped: "skipped",
      openai: "completed",
    });
  });

  test("every line of a kind the SDK has type-checks against its SDK type (migrated version-1 lines too); a broken line does not", async () => {
    const files = await checkedFiles();
    const result = files.find((file) => file.name === "completed")?.lines.at(-1);
    if (result === undefined) throw new Error("the completed run has no result line");
    const broken: CheckedFile = {
      name: "broken",
      lines: [
        { json: { ...(result.json as Line), total_cost_usd: null }, sdkType: "SDKResultMessage" },
      ],
    };

    const diagnostics = typeCheck([...files, broken]);

    const { broken: brokenDiagnostics = [], ...real } = Object.fromEntries(diagnostics);
    expect(Object.values(real).flat(), Object.values(real).flat().join("\n")).toEqual([]);
    expect(brokenDiagnostics.join("\n")).toMatch(/total_cost_usd/);
    expect(files.map((file) => file.lines.length).reduce((a, b) => a + b)).toBeGreaterThan(40);
  }, 120_000);

  test("structured output: the SDK's structured_output on success, its retries subtype once they ran out", () => {
    expect(transcripts.get("structured-output")?.at(-1)).toMatchObject({
      subtype: "success",
      structured_output: { label: "bug" },
    });
    expect(transcripts.get("invalid-output")?.at(-1)).toMatchObject({
      subtype: "error_max_structured_output_retries",
      terminal_reason: "structured_output_retry_exhausted",
    });
  });

  test("the kinds without an SDK type are exactly the ones docs/transcript.md lists as agent-run's own", async () => {
    const kinds = await documentedKinds();
    const seen = new Set([...transcripts.values()].flat().map(kindOf));
    const own = [...kinds].filter(([, sdkType]) => sdkType === null).map(([kind]) => kind);

    expect([...seen].filter((kind) => kinds.get(kind) === undefined)).toEqual([]);
    expect([...seen].filter((kind) => kinds.get(kind) === null).sort()).toEqual(own.sort());
    expect([...kinds.keys()].sort()).toEqual([...seen].sort());
  });

  test("every tool_use has a tool_result; one the run ended before says it never ran", () => {
    const unanswered = [...transcripts].flatMap(([name, lines]) => {
      const results = new Set(
        lines
          .filter((line) => line.type === "user")
          .flatMap((line) => (line.message as { content: Line[] }).content)
          .map((block) => block.tool_use_id),
      );
      return lines
        .filter((line) => line.type === "assistant")
        .flatMap((line) => (line.message as { content: Line[] }).content)
        .filter((block) => block.type === "tool_use" && !results.has(block.id))
        .map((block) => `${name}: ${String(block.id)}`);
    });
    const closed = (name: string) =>
      transcripts
        .get(name)
        ?.filter((line) => line.not_run === true)
        .map((line) => line.step);

    expect(unanswered).toEqual([]);
    expect(closed("loop")).toEqual([2]);
    expect(closed("max-tokens")).toEqual([1]);
    expect(closed("timeout")).toEqual([1]);
    expect(closed("cancelled")).toEqual([1]);
    expect(transcripts.get("loop")?.find((line) => line.not_run === true)).toMatchObject({
      message: {
        content: [{ is_error: true, content: expect.stringMatching(/^not run: .*loop/) }],
      },
    });
  });

  test("a replay of the loop run ends the same way, its not_run line not taken for a result", async () => {
    const replay = await spawnCli(
      ["replay", "--strict", dir.path("out/loop/transcript.jsonl"), "--out", dir.path("replays")],
      {},
    );

    expect(replay.stderr).toMatch(/replay: no divergence/);
    const lines = (await readFile(dir.path("replays/loop/transcript.jsonl"), "utf8"))
      .trimEnd()
      .split("\n")
      .map((row) => JSON.parse(row) as Line);
    expect(lines.at(-1)).toMatchObject({ status: "loop" });
    expect(lines.filter((line) => line.not_run === true)).toHaveLength(1);
  });

  test("the SDK fields carry agent-run's honest values", () => {
    const line = (name: string, kind: string) =>
      transcripts.get(name)?.find((candidate) => kindOf(candidate) === kind);

    expect(line("completed", "system/init")).toMatchObject({
      apiKeySource: "ANTHROPIC_API_KEY",
      permissionMode: "dontAsk",
      mcp_servers: [],
      slash_commands: [],
      output_style: "default",
    });
    expect(line("budget", "system/init")).toMatchObject({ apiKeySource: "none" });
    expect(line("budget", "assistant")).toMatchObject({ message: { model: "claude-haiku-4-5" } });
    const retries = transcripts.get("api-retry")?.filter((l) => kindOf(l) === "system/api_retry");
    expect(retries).toMatchObject([
      { error: "overloaded", error_status: 529, retry_delay_ms: 5 },
      { error: "server_error", error_status: 503, retry_delay_ms: 1000 },
    ]);
    expect(line("context-trim", "system/compact_boundary")).toMatchObject({
      compact_metadata: { trigger: "auto", pre_tokens: expect.any(Number) },
    });
    expect(line("refused", "result")).toMatchObject({
      permission_denials: [{ tool_name: "bash", tool_input: { command: "sudo true" } }],
    });
    expect(line("protocol-error", "result")).toMatchObject({
      terminal_reason: "malformed_tool_use_exhausted",
    });
    expect(line("mcp", "system/init")).toMatchObject({
      tools: expect.arrayContaining(["mcp__tickets__show_env", "mcp__tickets__crash"]),
      mcp_servers: [
        { name: "tickets", status: "connected", serverInfo: { name: "ticket-server" } },
        { name: "broken", status: "failed", error: expect.stringMatching(/^exited with code 1/) },
      ],
    });
  });
});
