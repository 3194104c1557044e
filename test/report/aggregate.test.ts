import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildReport } from "../../src/report/aggregate.js";
import { loadRunSummaries } from "../../src/report/load-runs.js";
import { writeMixedShards } from "../helpers/report-fixtures.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";

let tmp: string;
let shards: [string, string];
let batch: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-aggregate-"));
  shards = await writeMixedShards(tmp);
  batch = join(tmp, "batch");
  expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", batch])).exitCode).toBe(0);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The summary.json fields the totals add up. */
type Written = { steps: number; total_tokens: number; cost_usd: number; changed_files: unknown[] };

describe("buildReport", () => {
  test("counts and totals over several folders, tasks sorted by name", async () => {
    const examples = await Promise.all(
      ["add-farewell", "fix-failing-test", "rename-function"].map(
        async (name) =>
          JSON.parse(await readFile(join(batch, name, "summary.json"), "utf8")) as Written,
      ),
    );
    const sum = (pick: (summary: Written) => number) =>
      examples.reduce((total, summary) => total + pick(summary), 0);
    const report = buildReport(await loadRunSummaries([...shards, batch]));

    expect(report.tasks.map((task) => [task.name, task.runs[0]?.status, task.passed])).toEqual([
      ["add-farewell", "completed", true],
      ["alpha", "completed", true],
      ["beta", "max_steps", false],
      ["fix-failing-test", "completed", true],
      ["gamma", "completed", false],
      ["rename-function", "completed", true],
    ]);
    expect(report.totals).toMatchObject({
      tasks: 6,
      passed: 4,
      failed: 2,
      passRate: 4 / 6,
      statuses: { completed: 5, max_steps: 1 },
      steps: sum((summary) => summary.steps) + 3 + 8 + 5,
      totalTokens: sum((summary) => summary.total_tokens) + 1500 + 4000 + 1500,
      costUsd: expect.closeTo(sum((summary) => summary.cost_usd) + 0.01 + 0.0234, 9),
      unpricedTrials: 1,
      changedFileCount: sum((summary) => summary.changed_files.length) + 1 + 0 + 1,
      checkCount: 4 + 9,
      failedCheckCount: 3,
    });
  });

  test("a task's failed checks, file count and cost come through; an unknown price stays null", async () => {
    const report = buildReport(await loadRunSummaries(shards));
    const beta = report.tasks.find((task) => task.name === "beta");

    expect(beta?.runs).toHaveLength(1);
    expect(beta?.runs[0]).toMatchObject({
      status: "max_steps",
      costUsd: null,
      changedFileCount: 0,
      checkCount: 1,
      failedChecks: [
        { name: "tests pass", kind: "run", line: 12, message: "`npm test` exited with 1" },
      ],
    });
    expect(report.totals.durationMs).toBe(2500 + 61_000 + 2500);
  });

  test("the same runs in a different order give an equal report", async () => {
    const runs = await loadRunSummaries([...shards, batch]);

    expect(buildReport([...runs].reverse())).toEqual(buildReport(runs));
  });
});
