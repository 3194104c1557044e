import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { atifProblems } from "../helpers/atif-check.js";
import { useModelServer } from "../helpers/model-server.js";
import { readTranscript } from "../helpers/outputs.js";
import { httpError, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { shouldRunSandboxTests } from "../helpers/sandbox-tests.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// The transcript lines the example runs do not have, exported to ATIF: a subagent's own
// subagent, thinking, a refused command, a context trim, a reply cut off at the output limit and
// a failed model call. One run (the API mocked with msw) has them all; its trajectory must pass
// the checker and put each where the README's mapping says.

const server = useModelServer();

type Json = Record<string, unknown>;
type Step = Json & {
  source: string;
  message: string;
  tool_calls?: Json[];
  observation?: { results: Json[] };
};
type Trajectory = Json & { steps: Step[]; subagent_trajectories?: Trajectory[]; extra: Json };

let dir: TmpWorkspace;
let lines: Json[];
let trajectory: Trajectory;
/** The tools each model call was offered, as the API got them (`server.requests` is cleared after each test). */
let offered: Json[][];

beforeAll(async () => {
  dir = await tmpWorkspace({
    files: { "ws/notes.txt": "one\n", "ws/big.txt": `${"x".repeat(99)}\n`.repeat(60) },
  });
  server.queue(
    reply()
      .thinking("Delegate the reading.", "sig-1")
      .text("Handing it over.")
      .toolUse(
        "task",
        { description: "Outer", prompt: "Delegate.", tools: ["read_file", "task"] },
        "toolu_A",
      )
      .usage(100, 10),
    reply()
      .toolUse(
        "task",
        { description: "Inner", prompt: "Read notes.txt.", tools: ["read_file"] },
        "toolu_B",
      )
      .usage(50, 5),
    reply().toolUse("read_file", { path: "notes.txt" }, "toolu_B1").usage(40, 4),
    reply().text("B: one").usage(30, 3),
    reply().text("A: one").usage(20, 2),
    reply()
      .toolUse("bash", { command: "rm -rf src" }, "toolu_R1")
      .toolUse("read_file", { path: "big.txt" }, "toolu_R2")
      .usage(200, 20),
    reply().toolUse("read_file", { path: "big.txt" }, "toolu_R3").usage(300, 30),
    reply().text("Half a sent").stop("max_tokens").usage(400, 40),
    httpError(400, { type: "error", error: { type: "invalid_request_error", message: "bad" } }),
  );
  const task = [
    "name: edges",
    "prompt: Go.",
    "workspace: ws",
    "tools: [bash, read_file, task]",
    "subagents: { max_steps: 5, max_depth: 2 }",
    'bash: { deny: ["rm *"] }',
    "context: { max_tokens: 2000 }",
    "",
  ].join("\n");
  await writeFile(dir.path("edges.yaml"), task);
  const env = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key", AGENT_RUN_MAX_RETRIES: "0" };
  const run = await runCli([dir.path("edges.yaml"), "--out", dir.path("out")], { env });
  expect(run.exitCode).toBe(1);
  lines = await readTranscript(dir.path("out/edges"));
  offered = server.requests.map((request) => request.tools as Json[]);
  const exported = await runCli(["export", "--atif", dir.path("atif"), dir.path("out")]);
  expect(exported.exitCode).toBe(0);
  trajectory = JSON.parse(await readFile(join(dir.path("atif"), "edges.json"), "utf8"));
}, 60_000);
afterAll(async () => {
  await dir[Symbol.asyncDispose]();
});

describe("export --atif of the rarer lines", () => {
  test("the run has them all, and its trajectory passes Harbor's rules", () => {
    const kinds = new Set(
      lines.map((line) => (line.type === "system" ? `system/${line.subtype}` : line.type)),
    );

    expect([...kinds]).toEqual(
      expect.arrayContaining([
        "system/compact_boundary",
        "system/api_error",
        "system/task_started",
      ]),
    );
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory.extra).toMatchObject({ status: "error" });
  });

  test("a subagent's subagent is embedded in its parent subagent, each pointed at by its task call", () => {
    const [outer] = trajectory.subagent_trajectories ?? [];
    const [inner] = outer?.subagent_trajectories ?? [];

    expect(outer?.trajectory_id).toBe("toolu_A");
    expect(trajectory.steps[2]?.observation?.results[0]).toMatchObject({
      content: "A: one",
      subagent_trajectory_ref: [{ trajectory_id: "toolu_A" }],
    });
    expect(inner?.trajectory_id).toBe("toolu_B");
    expect(outer?.steps[1]?.observation?.results[0]).toMatchObject({
      content: "B: one",
      subagent_trajectory_ref: [{ trajectory_id: "toolu_B" }],
    });
    expect(inner?.steps.map((step) => step.source)).toEqual(["user", "agent", "agent"]);
    expect(inner?.extra).toMatchObject({
      description: "Inner",
      status: "completed",
      spawn_depth: 2,
    });
  });

  test("thinking, a refused command, a trim, a cut-off notice and a failed call, each where the mapping says", () => {
    const steps = trajectory.steps;
    const refused = steps[3]?.observation?.results[0];

    expect(steps[2]).toMatchObject({
      message: "Handing it over.",
      reasoning_content: "Delegate the reading.",
    });
    expect(refused?.extra).toMatchObject({ is_error: true, permission_denied: true });
    expect(
      steps.map((step) => [step.source, step.source === "agent" ? "" : step.message.slice(0, 30)]),
    ).toEqual([
      ["system", expect.any(String)],
      ["user", "Go."],
      ["agent", ""],
      ["agent", ""],
      ["system", "agent-run trimmed the context:"],
      ["agent", ""],
      ["system", "agent-run trimmed the context:"],
      ["agent", ""],
      ["user", "Your last reply was cut off be"],
      ["system", "agent-run trimmed the context:"],
      ["system", "the model call failed: model A"],
    ]);
    expect(steps[4]?.extra).toEqual({
      context_management: { type: "pruning", boundary: "truncate" },
    });
    expect(steps[8]?.extra).toEqual({ sent_by: "agent-run" });
  });

  test("tool_definitions are the tools each agent was sent: names, descriptions, input schemas", () => {
    const [outer] = trajectory.subagent_trajectories ?? [];
    const [inner] = outer?.subagent_trajectories ?? [];
    const asSent = (tools: Json[] | undefined) =>
      (tools ?? []).map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
      }));

    expect(trajectory.agent).toMatchObject({ tool_definitions: asSent(offered[0]) });
    expect(outer?.agent).toMatchObject({ tool_definitions: asSent(offered[1]) });
    expect(inner?.agent).toMatchObject({ tool_definitions: asSent(offered[2]) });
  });
});

describe.runIf(shouldRunSandboxTests())("export --atif of a sandboxed run", () => {
  test("bash's definition is the one the model was sent, with the sandbox and its bounds", async () => {
    server.queue(reply().text("Nothing to do."));
    await writeFile(
      dir.path("boxed.yaml"),
      "name: boxed\nprompt: Go.\nworkspace: ws\nsandbox: bwrap\nsandbox_limits: { max_processes: 64 }\n",
    );
    const env = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };
    await runCli([dir.path("boxed.yaml"), "--out", dir.path("boxed")], { env });
    const tools = (server.requests[0]?.tools ?? []) as Json[];
    const sent = tools.find((tool) => tool.name === "bash");

    await runCli(["export", "--atif", dir.path("boxed-atif"), dir.path("boxed")]);
    const exported = JSON.parse(await readFile(dir.path("boxed-atif/boxed.json"), "utf8"));

    expect(exported.agent.tool_definitions[0].function).toEqual({
      name: "bash",
      description: sent?.description,
      parameters: sent?.input_schema,
    });
    expect(sent?.description).toContain("at most 64 processes");
  });
});
