import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** A task with scripted replies (one YAML list item per step) and optional extra task-file lines. */
function scripted(replies: string, extra = ""): Record<string, string> {
  return {
    "ws/a.txt": "a\n",
    "r.yaml": replies,
    "t.yaml": `prompt: Go.\nworkspace: ws\nreplies: r.yaml\n${extra}`,
  };
}

const bash = (command: string) =>
  `- content: [{ type: tool_use, name: bash, input: { command: ${JSON.stringify(command)} } }]\n`;
const done = "- content: [{ type: text, text: done }]\n";

describe("replay: ending where the recording ended", () => {
  test("a run that timed out replays to the same step and status, and its checks still run", async () => {
    await using dir = await tmpWorkspace({ files: { delay: "5" } });
    const files = scripted(
      bash("echo one") + bash(`sleep $(cat ${dir.path("delay")})`) + done,
      "limits: { timeout: 1s }\nchecks:\n  - run: test -f a.txt\n",
    );
    for (const [name, content] of Object.entries(files))
      await writeFileDeep(dir.path(name), content);
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
    expect(await readSummary(dir.path("runs/t"))).toMatchObject({ status: "timeout", steps: 2 });
    await writeFile(dir.path("delay"), "0");

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(1);
    const summary = await readSummary(dir.path("replays/t"));
    expect(summary).toMatchObject({ status: "timeout", steps: 2 });
    expect(summary.checks).toMatchObject([{ kind: "run", passed: true }]);
  });

  test("--until-step K without --continue stops after K steps (status max_steps)", async () => {
    await using dir = await tmpWorkspace({
      files: scripted(bash("echo one") + bash("echo two") + done),
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--until-step",
      "1",
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("replays/t"))).toMatchObject({
      status: "max_steps",
      steps: 1,
    });
  });

  test("--task re-grades with the file's checks but replays the recorded task (its limits and tools)", async () => {
    await using dir = await tmpWorkspace({
      files: scripted(bash("echo one") + bash("echo two") + done),
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
    await writeFile(
      dir.path("strict.yaml"),
      "prompt: Go.\nworkspace: ws\nlimits: { max_steps: 1 }\ntools: [read_file]\nchecks:\n  - file_exists: b.txt\n",
    );

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--task",
      dir.path("strict.yaml"),
      "--out",
      dir.path("replays"),
    ]);

    expect(run.stderr).toContain("replay: no divergence (2 steps compared)");
    expect(await readSummary(dir.path("replays/t"))).toMatchObject({
      status: "completed",
      steps: 3,
      passed: false,
      checks: [{ kind: "file_exists", passed: false }],
    });
  });
});

describe("replay: what counts as a divergence", () => {
  test("the workspace's own path in an output is not a divergence", async () => {
    await using dir = await tmpWorkspace({ files: scripted(bash("pwd; ls") + done) });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--strict",
      "--out",
      dir.path("replays"),
    ]);

    expect(run.stderr).toContain("replay: no divergence (1 step compared)");
    expect(run.exitCode).toBe(0);
  });

  test("a changed duration in a file's content is a divergence (only bash timings are masked)", async () => {
    await using dir = await tmpWorkspace({
      files: {
        ...scripted(
          `- content: [{ type: tool_use, name: read_file, input: { path: conf.yaml } }]\n${done}`,
        ),
        "ws/conf.yaml": "retry_after: 30s\n",
      },
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
    await writeFile(dir.path("ws/conf.yaml"), "retry_after: 5s\n");

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--strict",
      "--allow-changed-workspace",
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/diverged at step 1 \(read_file\)/);
  });
});

describe("resume: where it writes", () => {
  test("a renamed run folder is resumed in place; the earlier transcript is kept and named as the origin", async () => {
    await using dir = await tmpWorkspace({
      files: scripted(bash("echo one") + bash("echo two") + done, "limits: { max_steps: 1 }\n"),
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
    const before = (await readTranscript(dir.path("runs/t")))[0];
    await rename(dir.path("runs/t"), dir.path("runs/renamed"));

    const run = await runCli(["resume", dir.path("runs/renamed"), "--max-steps", "5"]);

    expect(run.exitCode).toBe(0);
    const previous = dir.path(
      `runs/renamed/transcript.before-resume.${String(before?.session_id)}.jsonl`,
    );
    expect((await readTranscript(dir.path("runs/renamed")))[0]).toMatchObject({
      origin: { kind: "resume", transcript: previous, steps: 1 },
    });
    expect(await readSummary(dir.path("runs/renamed"))).toMatchObject({
      status: "completed",
      steps: 3,
    });
    await expect(readSummary(dir.path("runs/t"))).rejects.toThrow();
  });

  test("a run stopped at max_steps is not resumed without a raised limit", async () => {
    await using dir = await tmpWorkspace({
      files: scripted(bash("echo one") + done, "limits: { max_steps: 1 }\n"),
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    const run = await runCli(["resume", dir.path("runs/t")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /stopped at max_steps; resuming it would stop there again\. Raise the limit with --max-steps/,
    );
  });

  test("--fresh-budget gives the continuation its own max_tokens on top of what was spent", async () => {
    const costly = (text: string) =>
      `- content: [{ type: tool_use, name: bash, input: { command: "echo ${text}" } }]\n  usage: { input_tokens: 200, output_tokens: 50 }\n`;
    await using dir = await tmpWorkspace({
      files: scripted(
        costly("one") + costly("two") + costly("three") + done,
        "limits: { max_tokens: 300 }\n",
      ),
    });
    await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
    expect(await readSummary(dir.path("runs/t"))).toMatchObject({ status: "max_tokens", steps: 2 });

    const run = await runCli(["resume", dir.path("runs/t"), "--fresh-budget"]);

    expect(run.exitCode).toBe(0);
    expect(await readSummary(dir.path("runs/t"))).toMatchObject({
      status: "completed",
      steps: 4,
      total_tokens: 750,
    });
  });
});

async function writeFileDeep(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}
