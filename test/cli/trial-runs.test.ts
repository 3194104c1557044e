import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readSummary } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Running trials: side by side, from the task file or the flag, and refused when they make no
// sense, before anything is written.

const WRITE = `- content: [{ type: tool_use, name: write_file, input: { path: out.txt, content: "x\\n" } }]
- content: [{ type: text, text: done }]
`;

function files(extra = ""): Record<string, string> {
  return {
    "ws/a.txt": "a\n",
    "r.yaml": WRITE,
    "t.yaml": `prompt: Go.\nworkspace: ws\nreplies: r.yaml\n${extra}`,
  };
}

describe("running trials", () => {
  test("trials of one task run side by side under --concurrency, each on its own copy", async () => {
    await using dir = await tmpWorkspace({ files: files() });
    const run = await runCli([
      ...["--offline", "--trials", "3", "-j", "3", dir.path("t.yaml")],
      ...["--out", dir.path("out")],
    ]);

    expect(run.exitCode).toBe(0);
    const lines = run.stderr.split("\n");
    const started = lines.filter((line) => / started \(/.test(line));
    expect(started.map((line) => line.replace(/ started .*/, ""))).toEqual([
      "[t/trial-1]",
      "[t/trial-2]",
      "[t/trial-3]",
    ]);
    // All three start before the first ends: they run at once.
    const firstEnd = lines.findIndex((line) => /\] completed/.test(line));
    expect(lines.indexOf(started[2] ?? "")).toBeLessThan(firstEnd);
    expect(started[1]).toContain(`on a copy in ${dir.path("out/t/trial-2/workspace")}`);
    for (const trial of [1, 2, 3]) {
      expect(await readFile(dir.path(`out/t/trial-${trial}/workspace/out.txt`), "utf8")).toBe(
        "x\n",
      );
    }
    expect(run.stderr).toMatch(/^\[3\/3\] done, 0 failed/m);
  });

  test("`trials:` in the task file; --trials overrides it, and one trial keeps OUT/<task>/", async () => {
    await using dir = await tmpWorkspace({ files: files("trials: 2\n") });
    const two = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);

    expect(two.exitCode).toBe(0);
    expect((await readdir(dir.path("out/t"))).sort()).toEqual([".agent-run", "trial-1", "trial-2"]);
    expect(two.stdout).toMatch(/^\| t +\| +2\/2 \| +100\.0% \|/m);

    const once = await runCli([
      ...["--offline", "--trials", "1", dir.path("t.yaml")],
      ...["--out", dir.path("out")],
    ]);
    expect(once.exitCode).toBe(0);
    // The task's folder of trials is replaced by the one run, as one run replaces another.
    expect(existsSync(dir.path("out/t/trial-1"))).toBe(false);
    expect(await readSummary(dir.path("out/t"))).not.toHaveProperty("trial");
    expect(once.stdout).toMatch(/^\| t +\| completed \| yes +\|/m);

    const again = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);
    expect(again.exitCode).toBe(0);
    expect(existsSync(dir.path("out/t/summary.json"))).toBe(false);
    expect(await readSummary(dir.path("out/t/trial-2"))).toMatchObject({
      trial: { index: 2, count: 2 },
    });
  });

  test("the batch budget counts every trial: once spent, the trials left are skipped", async () => {
    const costly =
      "- content: [{ type: tool_use, name: list_files, input: {} }]\n  usage: { input_tokens: 100000, output_tokens: 10000 }\n";
    await using dir = await tmpWorkspace({
      files: {
        ...files(),
        "r.yaml": `${costly}${costly}- content: [{ type: text, text: done }]\n`,
      },
    });
    const run = await runCli([
      ...["--offline", "--trials", "3", "-j", "1", "--budget-tokens", "150000"],
      ...[dir.path("t.yaml"), "--out", dir.path("out")],
    ]);

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("out/t/trial-1"))).toMatchObject({ status: "budget" });
    for (const trial of [2, 3]) {
      expect(await readSummary(dir.path(`out/t/trial-${trial}`))).toMatchObject({
        status: "skipped",
        trial: { index: trial, count: 3 },
        error: "the batch budget is spent (220,000 of 150,000 tokens); raise --budget-tokens",
      });
    }
    expect(run.stdout).toMatch(/^\| t +\| +0\/3 \| +0\.0% \| +\| 2 skipped, 1 budget \|/m);
  });

  test.each([
    [["--trials", "0"], '--trials: expected a positive integer, got "0"'],
    [["--trials", "3.5"], '--trials: expected a positive integer, got "3.5"'],
    [["--trials", "101"], "--trials: at most 100, got 101"],
    [["--retry-errors", "-1"], '--retry-errors: expected a whole number, 0 or more, got "-1"'],
    [["--retry-errors", "11"], "--retry-errors: at most 10, got 11"],
    [
      ["--trials", "2", "--in-place"],
      "--trials 2 with --in-place: each trial would start from the files the one before it changed",
    ],
    [
      ["--retry-errors", "1", "--in-place"],
      "--retry-errors with --in-place: an attempt that failed may have changed the workspace",
    ],
  ])("%j is refused (exit 2), nothing written", async (flags, message) => {
    await using dir = await tmpWorkspace({ files: files() });
    const run = await runCli(["--offline", ...flags, dir.path("t.yaml"), "--out", dir.path("out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
    expect(existsSync(dir.path("out"))).toBe(false);
  });

  test.each([
    ["trials: 0", "t.yaml:4:9: trials: expected a positive integer, got 0"],
    ["trials: 500", "t.yaml:4:9: trials: expected at most 100, got 500"],
    ["trials: two", 't.yaml:4:9: trials: expected a positive integer, got "two"'],
  ])("`%s` in a task file is refused where it stands", async (line, message) => {
    await using dir = await tmpWorkspace({ files: files(`${line}\n`) });
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
    expect(existsSync(dir.path("out"))).toBe(false);
  });

  test("`trials:` with --in-place names the task file", async () => {
    await using dir = await tmpWorkspace({ files: files("trials: 2\n") });
    const run = await runCli([
      ...["--offline", "--in-place", dir.path("t.yaml")],
      ...["--out", dir.path("out")],
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${dir.path("t.yaml")}: trials: 2 with --in-place`);
  });
});
