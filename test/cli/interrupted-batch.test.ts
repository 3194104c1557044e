import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

const writeAndAnswer = (
  file: string,
) => `- content: [{ type: tool_use, name: write_file, input: { path: ${file}, content: "${file}\\n" } }]
- content: [{ type: text, text: wrote ${file} }]
`;

/** Task b's command waits for a file the test writes after the batch was interrupted. */
const waitForRelease = (
  release: string,
) => `- content: [{ type: tool_use, name: bash, input: { command: "touch started; until [ -f ${release} ]; do sleep 0.05; done; echo released" } }]
- content: [{ type: text, text: b done }]
`;

function batchFolder(): Promise<TmpWorkspace> {
  const task = (name: string) =>
    `prompt: Go.\nworkspace: ../ws\nreplies: ../replies/${name}.yaml\n`;
  return tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "tasks/a.yaml": task("a"),
      "tasks/b.yaml": task("b"),
      "tasks/c.yaml": task("c"),
      "replies/a.yaml": writeAndAnswer("a-out.txt"),
      "replies/b.yaml": waitForRelease("../../../release"),
      "replies/c.yaml": writeAndAnswer("c-out.txt"),
    },
  });
}

/** `agent-run report OUT --json FILE`'s file, to compare with the batch's own report.json. */
async function reportOf(dir: TmpWorkspace): Promise<string> {
  const run = await runCli(["report", dir.path("runs"), "--json", dir.path("report-again.json")]);
  expect(run.exitCode).toBe(0);
  return readFile(dir.path("report-again.json"), "utf8");
}

describe("an interrupted batch", () => {
  test("SIGINT mid-batch: the batch reports a task that never started as not_run, and resume OUT finishes it", async () => {
    await using dir = await batchFolder();
    const argv = ["--offline", dir.path("tasks/*.yaml"), "--out", dir.path("runs")];
    const interrupted = await spawnCli(
      [...argv, "--concurrency", "1"],
      {},
      {
        onSpawn: (child) => {
          const started = dir.path("runs/b/workspace/started");
          const poll = setInterval(() => {
            if (!existsSync(started)) return;
            clearInterval(poll);
            child.kill("SIGINT");
          }, 20);
          child.on("close", () => clearInterval(poll));
        },
      },
    );

    expect(interrupted.code).toBe(130);
    const batchReport = await readFile(dir.path("runs/report.json"), "utf8");
    const parsed = JSON.parse(batchReport) as {
      tasks: Array<{ name: string; runs: Array<{ status: string; cost_usd: number | null }> }>;
      totals: { statuses: Record<string, number>; unpriced_trials: number };
    };
    expect(parsed.totals.statuses).toEqual({ cancelled: 1, completed: 1, not_run: 1 });
    expect(parsed.tasks.find((task) => task.name === "c")?.runs[0]?.cost_usd).toBe(0);
    const runs = parsed.tasks.flatMap((task) => task.runs);
    expect(parsed.totals.unpriced_trials).toBe(runs.filter((run) => run.cost_usd === null).length);
    expect(interrupted.stdout).toMatch(/^\| c +\| not_run +\| no +\|/m);
    expect(await reportOf(dir)).toBe(batchReport);
    const killedCall = (await readTranscript(dir.path("runs/b"))).find(
      (line) => line.type === "user" && line.tool_name === "bash",
    );
    expect(killedCall).toMatchObject({ interrupted: true });

    await writeFile(dir.path("release"), "");
    const aBefore = await readSummary(dir.path("runs/a"));
    const resumed = await runCli(["resume", dir.path("runs"), "--offline"]);

    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toMatch(/\[b\] replay: no divergence/);
    expect(resumed.stdout).toMatch(/^\| b +\| completed \| yes +\|/m);
    expect(resumed.stdout).toMatch(/^\| c +\| completed \| yes +\|/m);
    expect(resumed.stdout).toMatch(/^3\/3 passed/m);
    expect(resumed.stdout).toMatch(/wall time .*; outputs in .*runs \(report\.json\)/);
    expect(await readSummary(dir.path("runs/a"))).toEqual(aBefore);
    expect((await readdir(dir.path("runs/a"))).some((name) => name.includes("before-resume"))).toBe(
      false,
    );
    expect(await readSummary(dir.path("runs/b"))).toMatchObject({
      status: "completed",
      final_text: "b done",
      origin: { kind: "resume", steps: 1 },
    });
    expect(await readFile(dir.path("runs/c/workspace/c-out.txt"), "utf8")).toBe("c-out.txt\n");
    expect(await reportOf(dir)).toBe(await readFile(dir.path("runs/report.json"), "utf8"));
  });

  test("SIGKILL mid-task: report lists every task (the killed one interrupted, the rest not_run) and resume OUT finishes them", async () => {
    await using dir = await batchFolder();
    // An earlier run of c in the same folder: the new batch replaces it before its first task.
    const earlier = await runCli([
      "--offline",
      dir.path("tasks/c.yaml"),
      "--out",
      dir.path("runs"),
    ]);
    expect(earlier.exitCode).toBe(0);
    const argv = ["--offline", dir.path("tasks/*.yaml"), "--out", dir.path("runs"), "-j", "1"];
    const killed = await spawnCli(
      argv,
      {},
      {
        onSpawn: (child) => {
          const started = dir.path("runs/b/workspace/started");
          const poll = setInterval(() => {
            if (!existsSync(started)) return;
            clearInterval(poll);
            child.kill("SIGKILL");
          }, 20);
          child.on("close", () => clearInterval(poll));
        },
      },
    );

    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(dir.path("runs/report.json"))).toBe(false);
    const report = await runCli(["report", dir.path("runs"), "--json", dir.path("r.json")]);
    expect(report.exitCode).toBe(0);
    expect(report.stderr).toBe("");
    expect(report.stdout).toMatch(/^\| a +\| completed +\| yes +\|/m);
    expect(report.stdout).toMatch(/^\| b +\| interrupted +\| no +\|/m);
    expect(report.stdout).toMatch(/^\| c +\| not_run +\| no +\|/m);
    expect(report.stdout).toMatch(/^1\/3 passed/m);
    const totals = (
      JSON.parse(await readFile(dir.path("r.json"), "utf8")) as {
        totals: { statuses: Record<string, number>; failed: number };
      }
    ).totals;
    expect(totals).toMatchObject({
      statuses: { completed: 1, interrupted: 1, not_run: 1 },
      failed: 2,
    });
    expect(await readSummary(dir.path("runs/c"))).toMatchObject({
      status: "not_run",
      error: expect.stringMatching(
        /^not run: agent-run stopped \(killed\?\) before this task started/,
      ),
    });

    await writeFile(dir.path("release"), "");
    const resumed = await runCli(["resume", dir.path("runs"), "--offline"]);

    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(/^\| b +\| completed \| yes +\|/m);
    expect(resumed.stdout).toMatch(/^\| c +\| completed \| yes +\|/m);
    expect(resumed.stdout).toMatch(/^3\/3 passed/m);
    expect(await readSummary(dir.path("runs/b"))).toMatchObject({
      status: "completed",
      final_text: "b done",
      origin: { kind: "resume" },
    });
    expect(await readFile(dir.path("runs/c/workspace/c-out.txt"), "utf8")).toBe("c-out.txt\n");
    expect(await reportOf(dir)).toBe(await readFile(dir.path("runs/report.json"), "utf8"));
  });

  test("a batch folder whose runs all finished has nothing to resume", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "tasks/a.yaml": "prompt: Go.\nworkspace: ../ws\nreplies: a.replies.yaml\n",
        "tasks/a.replies.yaml": writeAndAnswer("a-out.txt"),
      },
    });
    await runCli(["--offline", dir.path("tasks/a.yaml"), "--out", dir.path("runs")]);

    const run = await runCli(["resume", dir.path("runs"), "--offline"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/runs: every run in it finished, so there is nothing to resume/);
  });
});
