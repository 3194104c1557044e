import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { reportCommand } from "../../../src/cli/commands/report.js";
import { CLAUDE_EXAMPLES, runCli } from "../../helpers/run-cli.js";
import { recordingIo } from "../../helpers/run-summaries.js";

const TASKS = ["add-farewell", "fix-failing-test", "rename-function"] as const;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-merge-"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Runs `agent-run report` in-process with `--json`; returns report.json's bytes and stdout. */
async function report(patterns: string[], jsonFile: string) {
  const io = recordingIo();
  const exitCode = await reportCommand(
    { mode: "report", patterns, jsonFile, junitFile: undefined, hasJunitFileLine: false },
    io,
  );
  expect(exitCode).toBe(0);
  return { json: await readFile(jsonFile, "utf8"), stdout: io.out.join("\n") };
}

describe("a report merged from shard folders", () => {
  test("is byte-identical to the report over one folder holding every run", async () => {
    const all = join(tmp, "all");
    expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", all])).exitCode).toBe(0);
    // Two machines' artifacts: disjoint halves of the same runs, each holding its own report.json.
    const halves = { "1": [TASKS[1]], "2": [TASKS[0], TASKS[2]] };
    for (const [shard, names] of Object.entries(halves)) {
      for (const name of names) {
        await cp(join(all, name), join(tmp, "shards", shard, name), { recursive: true });
      }
    }
    const whole = await report([all], join(tmp, "whole.json"));
    await cp(join(tmp, "whole.json"), join(tmp, "shards", "1", "report.json"));
    const merged = await report([join(tmp, "shards", "*")], join(tmp, "merged.json"));

    expect(JSON.parse(whole.json).tasks.map((task: { name: string }) => task.name)).toEqual([
      ...TASKS,
    ]);
    expect(merged.json).toBe(whole.json);
    expect(merged.stdout).toBe(whole.stdout);
  });

  test("from separately run shards equals one unsharded run's report, durations aside", async () => {
    const unsharded = join(tmp, "unsharded");
    const shardA = join(tmp, "run-a");
    const shardB = join(tmp, "run-b");
    expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", unsharded])).exitCode).toBe(0);
    expect(
      (await runCli(["--offline", "tasks/rename-function.yaml", "--out", shardA])).exitCode,
    ).toBe(0);
    const rest = ["tasks/add-farewell.yaml", "tasks/fix-failing-test.yaml"];
    expect((await runCli(["--offline", ...rest, "--out", shardB])).exitCode).toBe(0);
    const withoutDurations = (json: string) =>
      json.replace(/"duration_ms": \d+(\.\d+)?/g, '"duration_ms": 0');

    const one = await report([unsharded], join(tmp, "one.json"));
    const merged = await report([shardA, shardB], join(tmp, "two.json"));

    expect(withoutDurations(merged.json)).toBe(withoutDurations(one.json));
    expect(merged.json).not.toContain(tmp);
  });
});
