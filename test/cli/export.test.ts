import { cp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { atifProblems } from "../helpers/atif-check.js";
import { readSummary } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { readPredictions } from "../helpers/swebench-check.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 18 §4, as a user meets it: the example tasks run offline with the real CLI, then
// `agent-run export` writes their run folders as SWE-bench predictions and ATIF trajectories,
// each checked with a checker of its format written from the format's own reader.

const NAMES = [
  "add-farewell",
  "deepseek-add-divide",
  "fix-failing-test",
  "mcp-ticket-fix",
  "plan-add-subtract",
  "rename-function",
  "subagent-greet-french",
  "text-protocol-default-name",
  "think-add-shout",
  "ticket-lookup",
  "triage-issue",
];

type Json = Record<string, unknown>;
type Step = Json & { source: string; tool_calls?: Json[]; observation?: { results: Json[] } };
type Metrics = { prompt_tokens: number; completion_tokens: number };
type Trajectory = Json & {
  agent: Json & { tool_definitions: { function: Json }[] };
  steps: Step[];
  final_metrics: Json;
  extra: Json;
  subagent_trajectories?: Trajectory[];
};

let dir: TmpWorkspace;
const out = () => dir.path("agent-runs");

beforeAll(async () => {
  dir = await tmpWorkspace();
  const run = await runCli(["--offline", "tasks/*.yaml", "--out", out()]);
  expect(run.exitCode).toBe(0);
}, 120_000);
afterAll(async () => {
  await dir[Symbol.asyncDispose]();
});

async function readTrajectory(folder: string, name: string): Promise<Trajectory> {
  return JSON.parse(await readFile(join(folder, `${name}.json`), "utf8")) as Trajectory;
}

/** Every trajectory of a tree: the run's, then its subagents'. */
const treeOf = (trajectory: Trajectory): Trajectory[] => [
  trajectory,
  ...(trajectory.subagent_trajectories ?? []).flatMap(treeOf),
];

const agentSteps = (trajectory: Trajectory) =>
  treeOf(trajectory).flatMap((each) => each.steps.filter((step) => step.source === "agent"));

/** The add-farewell example as a task file at `file`, with `instance_id: acme__greeter-7`. */
async function writeFarewellTask(file: string): Promise<void> {
  const task = (await readFile("tasks/add-farewell.yaml", "utf8"))
    .replaceAll("../fixtures/", `${resolve("fixtures")}/`)
    .replace(/^prompt:/m, "instance_id: acme__greeter-7\nprompt:");
  await writeFile(file, task);
}

describe("export --swebench", () => {
  test("SWE-bench's reader takes the file: one prediction per run, its changes.patch, its task name, its model", async () => {
    const file = dir.path("preds.jsonl");
    const run = await runCli(["export", "--swebench", file, out()]);

    expect([run.exitCode, run.stderr, run.stdout]).toEqual([
      0,
      "",
      `wrote 11 predictions to ${file} (1 with an empty patch)`,
    ]);
    const { predictions, problems } = readPredictions(file, await readFile(file, "utf8"));
    expect(problems).toEqual([]);
    expect(predictions.map((prediction) => prediction.instance_id)).toEqual(NAMES);
    for (const prediction of predictions) {
      const folder = join(out(), prediction.instance_id);
      expect(prediction.model_patch).toBe(await readFile(join(folder, "changes.patch"), "utf8"));
      // triage-issue answers with JSON and changes nothing: its patch is empty.
      const isEmpty = prediction.instance_id === "triage-issue";
      expect(prediction.model_patch).toMatch(isEmpty ? /^$/ : /^diff --git /);
      expect(prediction.model_name_or_path).toBe((await readSummary(folder)).model);
    }
  });

  test("the task's instance_id, --model-name, and a run that changed nothing (an empty patch)", async () => {
    await using ws = await tmpWorkspace();
    await writeFarewellTask(ws.path("farewell.yaml"));
    const runs = [
      ["--offline", ws.path("farewell.yaml"), "--out", ws.path("a")],
      ["--offline", "--max-steps", "1", "tasks/fix-failing-test.yaml", "--out", ws.path("b")],
    ];
    for (const argv of runs) await runCli(argv);
    const file = ws.path("preds.jsonl");

    const run = await runCli([
      "export",
      "--swebench",
      file,
      "--model-name",
      "org/agent-run",
      ws.path("a"),
      ws.path("b"),
    ]);

    expect([run.exitCode, run.stdout]).toEqual([
      0,
      `wrote 2 predictions to ${file} (1 with an empty patch)`,
    ]);
    const { predictions, problems } = readPredictions(file, await readFile(file, "utf8"));
    expect(problems).toEqual([]);
    expect(
      predictions.map(({ model_patch, ...rest }) => ({ ...rest, patch: model_patch !== "" })),
    ).toEqual([
      { instance_id: "acme__greeter-7", model_name_or_path: "org/agent-run", patch: true },
      { instance_id: "fix-failing-test", model_name_or_path: "org/agent-run", patch: false },
    ]);
  }, 60_000);

  test("a replay keeps the recorded instance_id", async () => {
    await using ws = await tmpWorkspace();
    await writeFarewellTask(ws.path("farewell.yaml"));
    await runCli(["--offline", ws.path("farewell.yaml"), "--out", ws.path("a")]);
    const replayed = await runCli(["replay", ws.path("a/add-farewell"), "--out", ws.path("r")]);

    const run = await runCli(["export", "--swebench", ws.path("p.jsonl"), ws.path("r")]);

    expect([replayed.exitCode, run.exitCode]).toEqual([0, 0]);
    expect(await readFile(ws.path("p.jsonl"), "utf8")).toMatch(
      /^\{"instance_id":"acme__greeter-7",/,
    );
  }, 60_000);
});

describe("export --atif", () => {
  let atif: string;
  let runs: { name: string; trajectory: Trajectory; summary: Json }[];
  beforeAll(async () => {
    atif = dir.path("trajectories");
    const run = await runCli(["export", "--atif", atif, out()]);
    expect([run.exitCode, run.stderr, run.stdout]).toEqual([
      0,
      "",
      `wrote 11 trajectories to ${atif}`,
    ]);
    runs = await Promise.all(
      NAMES.map(async (name) => ({
        name,
        trajectory: await readTrajectory(atif, name),
        summary: await readSummary(join(out(), name)),
      })),
    );
  });

  /** The trajectory of the example task `name`. */
  const trajectoryNamed = (name: string): Trajectory => {
    const found = runs.find((run) => run.name === name);
    if (found === undefined) throw new Error(`no run ${name}`);
    return found.trajectory;
  };

  test("one file per run, named after its task, and each passes Harbor's rules of ATIF v1.7", async () => {
    expect((await readdir(atif)).sort()).toEqual(NAMES.map((name) => `${name}.json`));
    for (const { name, trajectory } of runs) {
      expect(atifProblems(trajectory), name).toEqual([]);
      expect(trajectory.schema_version).toBe("ATIF-v1.7");
    }
  });

  test("system prompt, then the task's prompt, then one agent step per model call; every call has its result", () => {
    for (const { name, trajectory, summary } of runs) {
      expect(
        trajectory.steps.slice(0, 2).map((step) => step.source),
        name,
      ).toEqual(["system", "user"]);
      expect(agentSteps(trajectory), name).toHaveLength(Number(summary.steps));
      for (const step of agentSteps(trajectory)) {
        const calls = (step.tool_calls ?? []).map((call) => call.tool_call_id);
        expect((step.observation?.results ?? []).map((result) => result.source_call_id)).toEqual(
          calls,
        );
      }
      expect(trajectory.extra).toMatchObject({
        task: name,
        instance_id: name,
        status: "completed",
      });
    }
  });

  test("the steps' tokens add up to the run's, and final_metrics has the run's cost", () => {
    for (const { name, trajectory, summary } of runs) {
      const tokens = agentSteps(trajectory)
        .map((step) => step.metrics as Metrics)
        .reduce((sum, metrics) => sum + metrics.prompt_tokens + metrics.completion_tokens, 0);
      expect(tokens, name).toBe(summary.total_tokens);
      expect(trajectory.final_metrics.total_cost_usd, name).toBe(summary.cost_usd);
      expect(trajectory.final_metrics.total_steps).toBe(trajectory.steps.length);
    }
  });

  test("a subagent is an embedded trajectory, which its task call's result points at", () => {
    const trajectory = trajectoryNamed("subagent-greet-french");
    const [subagent] = trajectory.subagent_trajectories ?? [];
    const taskCall = trajectory.steps[2]?.tool_calls?.[0];
    const result = trajectory.steps[2]?.observation?.results[0];

    expect(taskCall?.function_name).toBe("task");
    expect(subagent?.trajectory_id).toBe(taskCall?.tool_call_id);
    expect(result?.subagent_trajectory_ref).toEqual([{ trajectory_id: taskCall?.tool_call_id }]);
    expect(subagent?.agent.tool_definitions.map((tool) => tool.function.name)).toEqual([
      "read_file",
      "list_files",
    ]);
    expect(subagent?.steps.map((step) => step.source)).toEqual(["user", "agent", "agent"]);
    expect(subagent?.extra).toMatchObject({ status: "completed", spawn_depth: 1 });
  });

  test("tool definitions: the built-in tools' own schemas, MCP and command tools' as recorded", async () => {
    const byName = trajectoryNamed;
    const tools = (name: string) =>
      byName(name)?.agent.tool_definitions.map((tool) => tool.function.name);
    const mcpInit = JSON.parse(
      (await readFile(join(out(), "mcp-ticket-fix/transcript.jsonl"), "utf8")).split("\n")[0] ?? "",
    );
    const lookup = byName("mcp-ticket-fix")?.agent.tool_definitions[3]?.function;

    expect(tools("mcp-ticket-fix")).toEqual([
      "bash",
      "read_file",
      "edit_file",
      "mcp__tickets__lookup_ticket",
      "mcp__tickets__close_ticket",
    ]);
    expect(lookup?.parameters).toEqual(mcpInit.mcp_servers[0].tools[0].input_schema);
    expect(tools("ticket-lookup")).toEqual([
      "read_file",
      "edit_file",
      "lookup_ticket",
      "run_tests",
    ]);
    expect(tools("plan-add-subtract")).toEqual([
      "bash",
      "read_file",
      "edit_file",
      "todo_write",
      "todo_read",
    ]);
    expect(
      byName("fix-failing-test")?.agent.tool_definitions[0]?.function.parameters,
    ).toMatchObject({
      properties: { command: { type: "string" } },
      required: ["command"],
    });
  });

  test("thinking (Claude) and reasoning (DeepSeek) are the steps' reasoning_content", () => {
    for (const name of ["think-add-shout", "deepseek-add-divide"]) {
      const steps = agentSteps(trajectoryNamed(name));
      expect(
        steps.some((step) => typeof step.reasoning_content === "string"),
        name,
      ).toBe(true);
    }
  });
});

describe("export: secrets, killed runs, the files it replaces", () => {
  test("both exports hide the environment's secrets and the --redact variables", async () => {
    const env = { FAREWELL_TOKEN: "Goodbye", GREETING: "Hello, " };
    const file = dir.path("secret/preds.jsonl");
    const atif = dir.path("secret/atif");
    const folder = join(out(), "add-farewell");

    const run = await runCli(
      ["export", "--swebench", file, "--atif", atif, "--redact", "GREETING", folder],
      { env },
    );

    expect(run.exitCode).toBe(0);
    for (const text of [
      await readFile(file, "utf8"),
      await readFile(join(atif, "add-farewell.json"), "utf8"),
    ]) {
      expect(text).not.toMatch(/Goodbye|Hello, /);
      expect(text).toContain("[REDACTED]");
    }
  });

  test("a killed run (no summary.json, a half-written last line, no patch) is exported as interrupted", async () => {
    const folder = dir.path("killed/fix-failing-test");
    await cp(join(out(), "fix-failing-test"), folder, { recursive: true });
    await rm(join(folder, "summary.json"));
    await rm(join(folder, "changes.patch"));
    const transcript = await readFile(join(folder, "transcript.jsonl"), "utf8");
    await writeFile(
      join(folder, "transcript.jsonl"),
      transcript.slice(0, transcript.indexOf('"type":"result"')),
    );

    const run = await runCli([
      "export",
      "--swebench",
      dir.path("killed/p.jsonl"),
      "--atif",
      dir.path("killed/atif"),
      folder,
    ]);
    const trajectory = await readTrajectory(dir.path("killed/atif"), "fix-failing-test");

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("(1 with an empty patch)");
    expect(atifProblems(trajectory)).toEqual([]);
    expect(trajectory.extra.status).toBe("interrupted");
    expect(trajectory.final_metrics.total_cost_usd).toBeUndefined();
  });

  test.each([
    ["v1-offline.jsonl", "fix-failing-test"],
    ["v1-live.jsonl", "v1-live"],
  ])(
    "a version-1 transcript (%s, migrated on read) exports to a valid trajectory",
    async (file, task) => {
      const folder = dir.path(`v1/${file}/${task}`);
      await cp(join("fixtures/transcripts", file), join(folder, "transcript.jsonl"));

      const run = await runCli(["export", "--atif", dir.path(`v1/${file}/atif`), folder]);

      expect(run.exitCode).toBe(0);
      expect(atifProblems(await readTrajectory(dir.path(`v1/${file}/atif`), task))).toEqual([]);
    },
  );

  test("a trajectory replaces its file of an earlier export; other files stay; no temporary file is left", async () => {
    const atif = dir.path("again");
    await runCli(["export", "--atif", atif, join(out(), "fix-failing-test")]);
    await writeFile(join(atif, "fix-failing-test.json"), "old");
    await writeFile(join(atif, "notes.txt"), "mine");

    const run = await runCli(["export", "--atif", atif, join(out(), "fix-failing-test")]);

    expect(run.exitCode).toBe(0);
    expect((await readdir(atif)).sort()).toEqual(["fix-failing-test.json", "notes.txt"]);
    expect(atifProblems(await readTrajectory(atif, "fix-failing-test"))).toEqual([]);
  });
});
