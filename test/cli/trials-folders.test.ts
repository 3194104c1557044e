import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readSummary } from "../helpers/outputs.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Trial folders through the rest of agent-run: sharding keeps a task's trials together, an
// interrupted batch of trials is finished by `resume OUT`, and `replay` keeps each trial's place.

type Totals = { trials: number; passed_trials: number; pass_at_k: Record<string, number> };
type Report = {
  tasks: Array<{ name: string; trials: number; passed_trials: number }>;
  totals: Totals & Record<string, unknown>;
};

const readReport = async (file: string) => JSON.parse(await readFile(file, "utf8")) as Report;

/** What does not depend on when or where the runs ran: durations aside. */
const outcome = (report: Report) => ({
  tasks: report.tasks.map((task) => [task.name, task.trials, task.passed_trials]),
  totals: { ...report.totals, duration_ms: 0 },
});

describe("trial folders", () => {
  test("--shard keeps a task's trials on one shard; the merged report is the unsharded one", async () => {
    await using dir = await tmpWorkspace();
    const argv = ["--offline", "--trials", "2", ...CLAUDE_EXAMPLES];
    const whole = await runCli([...argv, "--out", dir.path("whole")]);
    const first = await runCli([...argv, "--shard", "1/2", "--out", dir.path("shards/1")]);
    const second = await runCli([...argv, "--shard", "2/2", "--out", dir.path("shards/2")]);

    expect([whole.exitCode, first.exitCode, second.exitCode]).toEqual([0, 0, 0]);
    expect(first.stderr).toContain("agent-run: shard 1/2: 2 of 3 tasks");
    expect((await readdir(dir.path("shards/1"))).sort()).toEqual([
      "add-farewell",
      "rename-function",
      "report.json",
    ]);
    expect((await readdir(dir.path("shards/2/fix-failing-test"))).sort()).toEqual([
      ".agent-run",
      "trial-1",
      "trial-2",
    ]);
    const merged = await runCli([
      ...["report", dir.path("shards/*"), "--json", dir.path("merged.json")],
    ]);
    expect(merged.exitCode).toBe(0);
    expect(outcome(await readReport(dir.path("merged.json")))).toEqual(
      outcome(await readReport(dir.path("whole/report.json"))),
    );
    // A shard given twice would count its trials twice: refused, naming both folders.
    const twice = await runCli(["report", dir.path("shards/1"), dir.path("whole")]);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toMatch(/task "add-farewell" trial 1 appears twice, in .* and in /);
  });

  test("an interrupted batch of trials: report counts each trial, resume OUT finishes them, replay keeps their places", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
    // Trial 1 answers at once; the others wait in their command until the test releases them.
    const release = dir.path("release");
    const command = `case "$PWD" in */trial-1/*) echo quick ;; *) touch started; until [ -f ${release} ]; do sleep 0.05; done ;; esac`;
    await writeFile(
      dir.path("r.yaml"),
      `- content: [{ type: tool_use, name: bash, input: { command: ${JSON.stringify(command)} } }]\n- content: [{ type: text, text: done }]\n`,
    );
    await writeFile(dir.path("w.yaml"), "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n");
    const argv = ["--offline", "--trials", "3", "-j", "1", dir.path("w.yaml")];
    const interrupted = await spawnCli(
      [...argv, "--out", dir.path("runs")],
      {},
      {
        onSpawn: (child) => {
          const started = dir.path("runs/w/trial-2/workspace/started");
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
    expect(await readSummary(dir.path("runs/w/trial-3"))).toMatchObject({
      status: "not_run",
      trial: { index: 3, count: 3 },
    });
    const before = await runCli(["report", dir.path("runs")]);
    expect(before.stdout).toMatch(
      /^\| w +\| +1\/3 \| +33\.3% \| yes +\| 1 cancelled, 1 completed, 1 not_run \|/m,
    );

    await writeFile(release, "");
    const resumed = await runCli(["resume", dir.path("runs"), "--offline"]);

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^\[w\/trial-2\] replay: no divergence/m);
    expect(resumed.stdout).toMatch(/^\| w +\| +3\/3 \| +100\.0% \| +\| 3 completed \|/m);
    expect(await readSummary(dir.path("runs/w/trial-2"))).toMatchObject({
      status: "completed",
      trial: { index: 2, count: 3 },
      origin: { kind: "resume" },
    });
    const again = await runCli(["report", dir.path("runs"), "--json", dir.path("again.json")]);
    expect(again.exitCode).toBe(0);
    expect(await readFile(dir.path("again.json"), "utf8")).toBe(
      await readFile(dir.path("runs/report.json"), "utf8"),
    );

    const replayed = await runCli(["replay", dir.path("runs"), "--out", dir.path("replays")]);
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect((await readdir(dir.path("replays/w"))).sort()).toEqual([
      ".agent-run",
      "trial-1",
      "trial-2",
      "trial-3",
    ]);
    expect(await readSummary(dir.path("replays/w/trial-3"))).toMatchObject({
      trial: { index: 3, count: 3 },
      origin: { kind: "replay" },
    });
    expect(replayed.stdout).toMatch(/^\| w +\| +3\/3 \| +100\.0% \|/m);
  });

  test("resume gives a trial's folder (OUT/<task>/trial-<n>) or its task's folder of trials", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml":
          "- content: [{ type: tool_use, name: list_files, input: {} }]\n- content: [{ type: text, text: done }]\n",
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nlimits: { max_steps: 1 }\n",
      },
    });
    const run = await runCli([
      ...["--offline", "--trials", "2", dir.path("t.yaml"), "--out", dir.path("runs")],
    ]);
    expect(run.exitCode).toBe(1);

    const one = await runCli([
      ...["resume", dir.path("runs/t/trial-1"), "--offline", "--max-steps", "5"],
    ]);
    expect(one.exitCode).toBe(0);
    // The folder's report (runs/report.json) is refreshed: trial 1 passes now, trial 2 does not.
    expect(one.stdout).toMatch(/^\| t +\| +1\/2 \| +50\.0% \| yes +\|/m);
    const all = await runCli(["resume", dir.path("runs/t"), "--offline"]);
    expect(all.exitCode).toBe(2);
    expect(all.stderr).toContain("runs/t: every run in it finished, so there is nothing to resume");
  });
});
