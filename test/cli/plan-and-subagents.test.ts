import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 17 §1 and §2, as a user meets them: task files, the CLI against the (msw-mocked) Messages
// API, the transcript, summary.json and the reports; then each run replayed offline.

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

let dir: TmpWorkspace;
beforeEach(async () => {
  dir = await tmpWorkspace({ files: { "ws/notes.txt": "one\n" } });
});
afterEach(async () => {
  await dir[Symbol.asyncDispose]();
});

type Line = Record<string, unknown>;

/** Runs a task file of `yaml` (prompt and workspace added) against the queued replies. */
async function runTask(name: string, yaml: string) {
  const file = dir.path(`${name}.yaml`);
  await writeFile(file, `name: ${name}\nprompt: Go.\nworkspace: ws\n${yaml}`);
  const run = await runCli([file, "--out", dir.path("out")], { env: KEY });
  return { ...run, runDir: dir.path(`out/${name}`) };
}

/** Replays a run offline into `replays/`: the exit code and the divergence line. */
async function replay(runDir: string) {
  const run = await runCli(["replay", "--strict", runDir, "--out", dir.path("replays")]);
  return { ...run, divergence: run.stderr.split("\n").find((line) => line.includes("replay:")) };
}

const kindOf = (line: Line) =>
  line.type === "system" ? `system/${String(line.subtype)}` : String(line.type);

const PLAN = (statuses: string[]) => ({
  todos: statuses.map((status, index) => ({ content: `step ${index + 1}`, status })),
});

describe("the plan tool", () => {
  test("each todo_write is a plan line; summary.json, the table and JUnit show the final plan; replays offline", async () => {
    server.queue(
      reply()
        .toolUse("todo_write", PLAN(["in_progress", "pending"]))
        .usage(100, 10),
      reply()
        .toolUse("todo_write", PLAN(["completed", "in_progress"]))
        .usage(100, 10),
      reply().toolUse("todo_read", {}).usage(100, 10),
      reply().text("Stopped half way.").usage(100, 10),
    );
    const run = await runTask(
      "planned",
      "tools: [read_file, todo_write, todo_read]\nchecks:\n  - plan_complete: true\n",
    );

    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^\| planned +\| completed \| no +\| +0\/1 \| +1\/2 \|/m);
    expect(run.stdout).toContain(
      '- planned: plan_complete: every item completed — 1 of 2 plan items are not completed: "step 2" (in_progress)',
    );
    expect(run.stderr).toContain("[planned] step 2 plan: 1/2 completed, now: step 2");
    const lines = await readTranscript(run.runDir);
    const plans = lines.filter((line) => line.type === "plan");
    expect(plans).toMatchObject([
      { step: 1, parent_tool_use_id: null, completed: 0, total: 2 },
      { step: 2, parent_tool_use_id: null, completed: 1, total: 2 },
    ]);
    const read = lines.find((line) => line.tool_name === "todo_read");
    expect(read).toMatchObject({
      message: { content: [{ content: "1 of 2 completed:\n[x] 1. step 1\n[>] 2. step 2" }] },
    });
    const summary = await readSummary(run.runDir);
    expect(summary.plan).toEqual({
      items: [
        { content: "step 1", status: "completed" },
        { content: "step 2", status: "in_progress" },
      ],
      completed: 1,
      total: 2,
    });
    const system = (lines[0]?.task as { system: string } | undefined)?.system;
    expect(system).toContain("You have a plan tool, todo_write.");
    const report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8"));
    expect(report.tasks[0].runs[0].plan).toEqual({ completed: 1, total: 2 });
    await runCli(["report", dir.path("out"), "--junit", dir.path("junit.xml")]);
    expect(await readFile(dir.path("junit.xml"), "utf8")).toContain("plan: 1 of 2 items completed");

    const replayed = await replay(run.runDir);
    expect(replayed.exitCode).toBe(1);
    expect(replayed.divergence).toBe("[planned] replay: no divergence (3 steps compared)");
    expect((await readSummary(dir.path("replays/planned"))).plan).toEqual(summary.plan);
  });

  test("a plan never written is null in summary.json and report.json, and 'none' in the table", async () => {
    server.queue(reply().text("No plan needed."));
    const run = await runTask("unplanned", "tools: [read_file, todo_write]\n");

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^\| unplanned +\| completed \| yes +\| +- \| +none \|/m);
    expect((await readSummary(run.runDir)).plan).toBeNull();
    const report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8"));
    expect(report.tasks[0].runs[0].plan).toBeNull();
  });

  test("a task without the plan tool has no plan in summary.json, nor a plan column", async () => {
    server.queue(reply().text("Nothing to do."));
    const run = await runTask("plain", "");

    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toMatch(/\| plan \|/);
    expect(await readSummary(run.runDir)).not.toHaveProperty("plan");
  });

  test("the plan tools and plan_complete need todo_write; subagents: needs task (exit 2, file:line)", async () => {
    const file = dir.path("bad.yaml");
    await writeFile(
      file,
      "prompt: Go.\nworkspace: ws\ntools: [bash, todo_read]\nsubagents: { max_steps: 3 }\nchecks:\n  - plan_complete: true\n",
    );
    const run = await runCli([file, "--out", dir.path("out")], { env: KEY });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${file}:3:15: tools[1]: todo_read reads the plan that todo_write writes; add todo_write to tools`,
    );
    expect(run.stderr).toContain(
      `${file}:4:1: subagents: sets up the task tool, which this task does not offer; add task to tools`,
    );
    expect(run.stderr).toContain(
      `${file}:6:20: checks[0].plan_complete: plan_complete checks the plan that the todo_write tool keeps, which this task does not offer; add todo_write to tools`,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe("subagents (the task tool)", () => {
  const TASK = "tools: [read_file, list_files, task]\nsubagents: { max_steps: 3 }\n";

  test("a subagent's lines are tagged with its task call; its tokens count in the run's totals; replays offline", async () => {
    server.queue(
      reply()
        .toolUse(
          "task",
          { description: "Read notes", prompt: "Read notes.txt", tools: ["read_file"] },
          "toolu_t1",
        )
        .usage(1_000, 50),
      reply().toolUse("read_file", { path: "notes.txt" }).usage(700, 20),
      reply().text("notes.txt says one.").usage(300, 30),
      reply().text("The notes say one.").usage(1_200, 40),
    );
    const run = await runTask("delegated", TASK);

    expect(run.exitCode).toBe(0);
    const lines = await readTranscript(run.runDir);
    expect(lines.map((line) => [kindOf(line), line.step, line.parent_tool_use_id])).toEqual([
      ["system/init", undefined, undefined],
      ["assistant", 1, null],
      ["system/task_started", 1, null],
      ["assistant", 1, "toolu_t1"],
      ["user", 1, "toolu_t1"],
      ["assistant", 2, "toolu_t1"],
      ["system/task_notification", 1, null],
      ["user", 1, null],
      ["assistant", 2, null],
      ["result", undefined, undefined],
    ]);
    expect(lines[2]).toMatchObject({ tool_use_id: "toolu_t1", tools: ["read_file"], max_steps: 3 });
    expect(lines[6]).toMatchObject({
      status: "completed",
      run_status: "completed",
      num_turns: 2,
      usage: { total_tokens: 1_050, tool_uses: 1 },
    });
    expect(lines[7]).toMatchObject({
      tool_name: "task",
      message: { content: [{ content: "notes.txt says one." }] },
    });
    const summary = await readSummary(run.runDir);
    expect(summary).toMatchObject({ steps: 4, total_tokens: 3_340 });
    expect(lines.at(-1)).toMatchObject({ num_turns: 4, usage: { input_tokens: 3_200 } });
    // The subagent's request: a fresh conversation, its own tools, the subagent's prompt.
    const child = server.requests[1] as {
      messages: unknown[];
      tools: Array<{ name: string }>;
      system: unknown;
    };
    expect(child.messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "Read notes.txt" }] },
    ]);
    expect(child.tools.map((tool) => tool.name)).toEqual(["read_file"]);
    expect(JSON.stringify(child.system)).toContain("You are a subagent");

    const replayed = await replay(run.runDir);
    expect(replayed.exitCode).toBe(0);
    expect(replayed.divergence).toBe("[delegated] replay: no divergence (1 step compared)");
    expect(await readSummary(dir.path("replays/delegated"))).toMatchObject({
      steps: 4,
      total_tokens: 3_340,
    });
  });

  test("a subagent stopped by its step limit: its open calls are closed, the agent is told and goes on", async () => {
    server.queue(
      reply().toolUse(
        "task",
        { description: "Explore", prompt: "Look around", max_steps: 2 },
        "toolu_t1",
      ),
      reply().toolUse("list_files", { path: "." }),
      reply().toolUse("read_file", { path: "notes.txt" }).toolUse("list_files", { path: "." }),
      reply().text("The subagent ran out of steps; done anyway."),
    );
    const run = await runTask("limited", TASK);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      "[limited] step 1 subagent step 2 subagent step limit reached (2 of 2 steps)",
    );
    const lines = await readTranscript(run.runDir);
    expect(lines.find((line) => line.type === "limit_reached")).toMatchObject({
      limit: "max_steps",
      used: 2,
      max: 2,
      step: 2,
      parent_tool_use_id: "toolu_t1",
    });
    const taskResult = lines.find((line) => line.tool_name === "task");
    expect(taskResult).toMatchObject({
      parent_tool_use_id: null,
      message: {
        content: [
          {
            is_error: true,
            content: expect.stringMatching(
              /^The subagent stopped before it finished: the subagent's step limit was reached \(2 of 2 steps\); raise subagents.max_steps, or the task call's max_steps\./,
            ),
          },
        ],
      },
    });
    expect(lines.find((line) => line.subtype === "task_notification")).toMatchObject({
      status: "stopped",
      run_status: "max_steps",
    });
    const replayed = await replay(run.runDir);
    expect(replayed.exitCode).toBe(0);
    expect(replayed.divergence).toMatch(/no divergence/);
  });

  test("a subagent asked for a tool its agent lacks is refused; no subagent starts", async () => {
    server.queue(
      reply().toolUse(
        "task",
        { description: "Shell", prompt: "Run ls", tools: ["bash"] },
        "toolu_t1",
      ),
      reply().text("No shell for subagents here."),
    );
    const run = await runTask("greedy", TASK);

    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(2);
    const lines = await readTranscript(run.runDir);
    expect(lines.some((line) => line.subtype === "task_started")).toBe(false);
    expect(lines.find((line) => line.tool_name === "task")).toMatchObject({
      message: {
        content: [
          {
            is_error: true,
            content: expect.stringContaining(
              'a subagent can only have tools you have; you do not have "bash"',
            ),
          },
        ],
      },
    });
    expect((await replay(run.runDir)).divergence).toMatch(/no divergence/);
  });

  test("a subagent's usage that crosses the run's max_tokens ends the run at max_tokens", async () => {
    server.queue(
      reply()
        .toolUse("task", { description: "Big", prompt: "Read a lot" }, "toolu_t1")
        .usage(400, 10),
      reply().toolUse("read_file", { path: "notes.txt" }).usage(900, 10),
    );
    const run = await runTask("costly", `${TASK}limits: { max_tokens: 1000 }\n`);

    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^\| costly +\| max_tokens \|/m);
    const lines = await readTranscript(run.runDir);
    expect(lines.filter((line) => line.type === "limit_reached")).toMatchObject([
      { limit: "max_tokens", used: 1_320, max: 1_000, parent_tool_use_id: "toolu_t1" },
    ]);
    // The subagent's call was never run; its line says so, inside the subagent, before its end.
    const notRun = lines.findIndex((line) => line.not_run === true);
    const end = lines.findIndex((line) => line.subtype === "task_notification");
    expect(notRun).toBeGreaterThan(0);
    expect(notRun).toBeLessThan(end);
    expect(lines[notRun]).toMatchObject({ tool_name: "read_file", parent_tool_use_id: "toolu_t1" });
    expect(lines.at(-1)).toMatchObject({ status: "max_tokens", num_turns: 2 });
    expect(server.requests).toHaveLength(2);
    const replayed = await replay(run.runDir);
    expect(replayed.exitCode).toBe(1);
    expect(await readSummary(dir.path("replays/costly"))).toMatchObject({ status: "max_tokens" });
  });
});

describe("a subagent under the run's timeout", () => {
  test("the timeout stops the subagent's command and both agents; every call is closed in order", async () => {
    server.queue(
      reply()
        .toolUse("task", { description: "Wait", prompt: "Wait a while" }, "toolu_t1")
        .toolUse("read_file", { path: "notes.txt" }, "toolu_after"),
      reply()
        .toolUse("bash", { command: "sleep 30" }, "toolu_sleep")
        .toolUse("list_files", {}, "toolu_ls"),
    );
    const run = await runTask(
      "slow",
      "tools: [bash, read_file, list_files, task]\nlimits: { timeout: 1s }\n",
    );

    expect(run.exitCode).toBe(1);
    const lines = await readTranscript(run.runDir);
    const shape = lines
      .filter((line) => line.type === "user" || String(line.subtype).startsWith("task_"))
      .map((line) => [
        kindOf(line),
        line.tool_name ?? line.run_status,
        line.parent_tool_use_id,
        line.interrupted ?? line.not_run ?? null,
      ]);
    expect(shape).toEqual([
      ["system/task_started", undefined, null, null],
      ["user", "bash", "toolu_t1", true],
      ["user", "list_files", "toolu_t1", true],
      ["system/task_notification", "timeout", null, null],
      ["user", "task", null, true],
      ["user", "read_file", null, true],
    ]);
    expect(lines.find((line) => line.type === "limit_reached")).toMatchObject({
      limit: "timeout",
      parent_tool_use_id: "toolu_t1",
    });
    expect(lines.at(-1)).toMatchObject({ status: "timeout" });
  });
});

describe("resuming a run stopped inside a subagent", () => {
  test("the recorded steps (the subagent's too) are served; the subagent goes on live where it stopped", async () => {
    server.queue(
      reply().toolUse("task", { description: "Explore", prompt: "Look around" }, "toolu_t1"),
      reply().toolUse("list_files", { path: "." }),
      reply().toolUse("read_file", { path: "notes.txt" }),
    );
    const run = await runTask(
      "stopped",
      "tools: [read_file, list_files, task]\nlimits: { max_steps: 3 }\n",
    );
    expect(run.exitCode).toBe(1);
    expect(await readSummary(run.runDir)).toMatchObject({ status: "max_steps", steps: 3 });

    server.queue(
      reply().text("notes.txt holds one line: one."),
      reply().text("Explored: notes.txt holds one."),
    );
    const resumed = await runCli(["resume", run.runDir, "--max-steps", "10"], { env: KEY });

    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toContain("[stopped] replay: no divergence (1 step compared)");
    expect(server.requests).toHaveLength(5);
    // The first live call continues the subagent's conversation, after its recorded steps.
    const live = server.requests[3] as { messages: Array<{ role: string }> };
    expect(live.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    const lines = await readTranscript(run.runDir);
    const childSteps = lines
      .filter((line) => line.type === "assistant" && line.parent_tool_use_id === "toolu_t1")
      .map((line) => line.step);
    expect(childSteps).toEqual([1, 2, 3]);
    expect(lines.at(-1)).toMatchObject({ status: "completed", num_turns: 5 });
    expect(lines[0]).toMatchObject({ origin: { kind: "resume", steps: 1 } });
  });
});

describe("offline continuation after a subagent (the example task)", () => {
  test("resume and a fork play the replies file after every recorded call, the subagent's included", async () => {
    const out = dir.path("example");
    const stopped = await runCli([
      "--offline",
      "tasks/subagent-greet-french.yaml",
      "--max-steps",
      "3",
      "--out",
      out,
    ]);
    expect(stopped.exitCode).toBe(1);
    const runDir = join(out, "subagent-greet-french");
    expect(await readSummary(runDir)).toMatchObject({ status: "max_steps", steps: 3 });

    const resumed = await runCli(["resume", runDir, "--offline", "--max-steps", "20"]);

    expect(resumed.exitCode).toBe(0);
    expect(await readSummary(runDir)).toMatchObject({
      status: "completed",
      passed: true,
      steps: 6,
    });
    const forked = await runCli([
      "replay",
      runDir,
      "--until-step",
      "1",
      "--continue",
      "--offline",
      "--out",
      dir.path("forks"),
    ]);
    expect(forked.exitCode).toBe(0);
    expect(await readSummary(dir.path("forks/subagent-greet-french"))).toMatchObject({
      status: "completed",
      passed: true,
      steps: 6,
    });
  });
});
