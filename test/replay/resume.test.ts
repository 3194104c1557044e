import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

describe("agent-run resume", () => {
  test("a run stopped at max_steps goes on with raised limits, its tokens still counted", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    server.queue(
      reply().toolUse("write_file", { path: "b.txt", content: "b\n" }).usage(100, 10),
      reply().toolUse("write_file", { path: "c.txt", content: "c\n" }).usage(100, 10),
    );
    await writeFile(
      dir.path("task.yaml"),
      "prompt: Go.\nworkspace: ws\nlimits: { max_steps: 2, max_tokens: 300 }\n",
    );
    const first = await runCli([dir.path("task.yaml"), "--out", dir.path("runs")], { env: KEY });
    expect(first.exitCode).toBe(1);
    server.queue(reply().text("All done.").usage(50, 5));
    const before = server.requests.length;

    const run = await runCli(["resume", dir.path("runs/task"), "--max-steps", "5"], { env: KEY });

    expect(run.exitCode).toBe(0);
    expect(server.requests.length - before).toBe(1);
    const summary = await readSummary(dir.path("runs/task"));
    expect(summary).toMatchObject({
      status: "completed",
      steps: 3,
      total_tokens: 275,
      origin: { kind: "resume", steps: 2 },
    });
    expect((summary.changed_files as Array<{ path: string }>).map((file) => file.path)).toEqual([
      "b.txt",
      "c.txt",
    ]);
  });

  test("the recorded tokens count toward max_tokens unless --fresh-budget", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    server.queue(reply().toolUse("list_files", {}).usage(200, 50));
    await writeFile(
      dir.path("task.yaml"),
      "prompt: Go.\nworkspace: ws\nlimits: { max_steps: 1, max_tokens: 300 }\n",
    );
    await runCli([dir.path("task.yaml"), "--out", dir.path("runs")], { env: KEY });

    server.queue(reply().toolUse("list_files", {}).usage(200, 50));
    const counted = await runCli(["resume", dir.path("runs/task"), "--max-steps", "5"], {
      env: KEY,
    });
    expect(counted.exitCode).toBe(1);
    expect(await readSummary(dir.path("runs/task"))).toMatchObject({
      status: "max_tokens",
      total_tokens: 500,
    });
  });

  test("a run killed with SIGKILL mid-run resumes to completion", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "task.yaml": "prompt: Go.\nworkspace: ws\nreplies: replies.yaml\n",
        "tmp/.keep": "",
        "replies.yaml": `- content: [{ type: tool_use, name: write_file, input: { path: b.txt, content: "b\\n" } }]
- content: [{ type: tool_use, name: bash, input: { command: "touch started; sleep 1; echo slept" } }]
- content: [{ type: text, text: Finished after the restart. }]
`,
      },
    });
    const child = spawn(
      process.execPath,
      [resolve("bin/agent-run.js"), "--offline", dir.path("task.yaml"), "--out", dir.path("runs")],
      // SIGKILL leaves the task's private snapshot folder behind: in the test's own TMPDIR.
      { stdio: "ignore", env: { ...process.env, TMPDIR: dir.path("tmp") } },
    );
    const started = dir.path("runs/task/workspace/started");
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    const killed = await readTranscript(dir.path("runs/task")).catch(() => []);
    expect(killed.some((line) => line.type === "result")).toBe(false);

    const run = await runCli(["resume", dir.path("runs/task"), "--offline"]);

    expect(run.stderr).not.toMatch(/internal error/);
    expect(run.exitCode).toBe(0);
    const summary = await readSummary(dir.path("runs/task"));
    expect(summary).toMatchObject({
      status: "completed",
      steps: 3,
      final_text: "Finished after the restart.",
    });
    expect(await readFile(dir.path("runs/task/workspace/b.txt"), "utf8")).toBe("b\n");
  });

  test("a completed run is not resumed", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    server.queue(reply().text("done"));
    await writeFile(dir.path("task.yaml"), "prompt: Go.\nworkspace: ws\n");
    await runCli([dir.path("task.yaml"), "--out", dir.path("runs")], { env: KEY });

    const run = await runCli(["resume", dir.path("runs/task")], { env: KEY });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/this run completed; there is nothing to resume/);
  });
});
