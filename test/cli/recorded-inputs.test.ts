import { readdir } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readSummary } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

const REPLIES = `- content: [{ type: tool_use, name: read_file, input: { path: a.txt } }]
- content: [{ type: text, text: read it }]
`;

/** A batch of two offline tasks (x, y) recorded in `runs/`. */
async function recordedBatch(): Promise<TmpWorkspace> {
  const task = (name: string) =>
    `name: ${name}\nprompt: Go.\nworkspace: ws\nreplies: replies.yaml\n`;
  const dir = await tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "other/a.txt": "a\n",
      "replies.yaml": REPLIES,
      "x.yaml": task("x"),
      "y.yaml": task("y"),
      "renamed.yaml": "name: renamed\nprompt: Go.\nworkspace: other\n",
    },
  });
  const run = await runCli([
    "--offline",
    dir.path("x.yaml"),
    dir.path("y.yaml"),
    "--out",
    dir.path("runs"),
  ]);
  expect(run.exitCode).toBe(0);
  return dir;
}

describe("replay and resume take what run takes", () => {
  test("replay takes a quoted glob of run folders, passing over the batch's report.json", async () => {
    await using dir = await recordedBatch();

    const run = await runCli(["replay", dir.path("runs/*"), "--out", dir.path("replays")]);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/\[x\] replay: no divergence/);
    expect(run.stderr).toMatch(/\[y\] replay: no divergence/);
    expect((await readdir(dir.path("replays"))).sort()).toEqual(["report.json", "x", "y"]);
  });

  test("replay takes a batch folder (every run in it) and a run folder", async () => {
    await using dir = await recordedBatch();

    const batch = await runCli(["replay", dir.path("runs"), "--out", dir.path("all")]);
    const one = await runCli(["replay", dir.path("runs/y"), "--out", dir.path("one")]);

    expect([batch.exitCode, one.exitCode]).toEqual([0, 0]);
    expect((await readdir(dir.path("all"))).sort()).toEqual(["report.json", "x", "y"]);
    expect((await readdir(dir.path("one"))).sort()).toEqual(["report.json", "y"]);
  });

  test("a summary.json or report.json given by mistake is refused, naming what to give", async () => {
    await using dir = await recordedBatch();
    const folder = dir.path("runs/x");

    const replaySummary = await runCli(["replay", `${folder}/summary.json`]);
    const resumeSummary = await runCli(["resume", `${folder}/summary.json`]);
    const resumeTranscript = await runCli(["resume", `${folder}/transcript.jsonl`]);
    const replayReport = await runCli(["replay", dir.path("runs/report.json")]);

    expect(replaySummary).toMatchObject({ exitCode: 2 });
    expect(replaySummary.stderr).toContain(
      `${folder}/summary.json: a run's summary, not its recording; give its run folder ${folder} (or ${folder}/transcript.jsonl)`,
    );
    expect(resumeSummary.stderr).toContain(`not its recording; give ${folder}`);
    expect(resumeTranscript).toMatchObject({ exitCode: 2 });
    expect(resumeTranscript.stderr).toContain(
      `resume continues a run in its folder, not a transcript; give the run's folder ${folder}`,
    );
    expect(replayReport.stderr).toContain(
      `a batch's report, not a recording; give the batch's output folder ${dir.path("runs")}`,
    );
  });

  test("--until-step beyond the recording warns, saying how many steps it has", async () => {
    await using dir = await recordedBatch();

    const run = await runCli([
      "replay",
      dir.path("runs/x"),
      "--until-step",
      "9",
      "--out",
      dir.path("r"),
    ]);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      "--until-step 9 is beyond the recording, which has 2 steps; replaying all 2",
    );
  });

  test("replay --task keeps the recording's name and workspace, and says so", async () => {
    await using dir = await recordedBatch();

    const run = await runCli([
      "replay",
      dir.path("runs/x"),
      "--task",
      dir.path("renamed.yaml"),
      "--out",
      dir.path("r"),
    ]);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(
      `--task ${dir.path("renamed.yaml")}: its name "renamed" (the run keeps the recording's, "x") and workspace ${dir.path("other")} (the run starts from the recorded one, ${dir.path("ws")}) are not used`,
    );
    expect(await readSummary(dir.path("r/x"))).toMatchObject({ name: "x", status: "completed" });
  });

  test("resume of a run folder prints the batch's table, as run does", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "replies.yaml": REPLIES,
        "x.yaml": "prompt: Go.\nworkspace: ws\nreplies: replies.yaml\nlimits: { max_steps: 1 }\n",
      },
    });
    await runCli(["--offline", dir.path("x.yaml"), "--out", dir.path("runs")]);

    const run = await runCli(["resume", dir.path("runs/x"), "--offline", "--max-steps", "5"]);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^\| x +\| completed \| yes +\|/m);
    expect(run.stdout).toMatch(/^1\/1 passed/m);
    expect(run.stdout).toMatch(/wall time .*; outputs in .*runs \(report\.json\)$/m);
  });
});
