import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildReport, type Report } from "../../src/report/aggregate.js";
import { compareReports, formatComparisonMarkdown } from "../../src/report/compare.js";
import { loadRunSummaries } from "../../src/report/load-runs.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { failedCheck, writeRun } from "../helpers/run-summaries.js";

let tmp: string;
let base: Report;
let next: Report;
let renamed: { steps: number; total_tokens: number; cost_usd: number };
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-compare-"));
  const baseDir = join(tmp, "base");
  const nextDir = join(tmp, "next");
  expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", baseDir])).exitCode).toBe(0);
  await cp(baseDir, nextDir, { recursive: true });
  // Tonight: rename-function hits its step limit with a failed check, add-farewell is gone, zeta is new.
  const file = join(nextDir, "rename-function", "summary.json");
  renamed = JSON.parse(await readFile(file, "utf8"));
  const flipped = {
    ...renamed,
    status: "max_steps",
    passed: false,
    steps: renamed.steps + 2,
    total_tokens: renamed.total_tokens + 1000,
    cost_usd: renamed.cost_usd + 0.005,
    checks: [failedCheck("no multiply left", "src/math.js still contains multiply")],
  };
  await writeFile(file, JSON.stringify(flipped));
  await rm(join(nextDir, "add-farewell"), { recursive: true });
  await writeRun(nextDir, "zeta");
  base = buildReport(await loadRunSummaries([baseDir]));
  next = buildReport(await loadRunSummaries([nextDir]));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("compareReports", () => {
  test("finds the pass → fail flip, new and missing tasks, and the per-task deltas", () => {
    const comparison = compareReports(base, next);

    expect(comparison).toMatchObject({
      passToFail: ["rename-function"],
      failToPass: [],
      added: ["zeta"],
      missing: ["add-farewell"],
    });
    expect(comparison.tasks.map((task) => [task.name, task.stepsDelta, task.tokensDelta])).toEqual([
      ["fix-failing-test", 0, 0],
      ["rename-function", 2, 1000],
    ]);
    expect(comparison.tasks[1]?.costDeltaUsd).toBeCloseTo(0.005, 9);
  });

  test("the other way round, the same task flips fail → pass and new and missing swap", () => {
    const comparison = compareReports(next, base);

    expect(comparison).toMatchObject({
      passToFail: [],
      failToPass: ["rename-function"],
      added: ["add-farewell"],
      missing: ["zeta"],
    });
    expect(comparison.tasks[1]?.stepsDelta).toBe(-2);
  });

  test("total deltas cover every task on each side", () => {
    const { totals } = compareReports(base, next);

    expect(totals.passedDelta).toBe(next.totals.passed - base.totals.passed);
    expect(totals.passedDelta).toBe(-1);
    expect(totals.stepsDelta).toBe(next.totals.steps - base.totals.steps);
    expect(totals.tokensDelta).toBe(next.totals.totalTokens - base.totals.totalTokens);
    expect(totals.costDeltaUsd).toBeCloseTo(next.totals.costUsd - base.totals.costUsd, 6);
  });

  test("renders the flips, the new and missing tasks and a table of deltas as Markdown", () => {
    expect(formatComparisonMarkdown(compareReports(base, next))).toMatchInlineSnapshot(`
      "3/3 → 2/3 passed: 1 pass → fail, 0 fail → pass, 1 new, 1 missing

      Pass → fail (1):
      - rename-function: completed → max_steps (failed checks: no multiply left)

      New tasks (1):
      - zeta

      Missing tasks (1):
      - add-farewell

      | task             | passed    | status                |        steps |                   tokens |                         cost |
      | ---------------- | --------- | --------------------- | -----------: | -----------------------: | ---------------------------: |
      | fix-failing-test | yes       | completed             |            5 |                   13,060 |                      $0.0143 |
      | rename-function  | yes → no  | completed → max_steps |   4 → 6 (+2) |   8,655 → 9,655 (+1,000) | $0.0118 → $0.0168 (+$0.0050) |
      | total            | 3/3 → 2/3 |                       | 13 → 14 (+1) | 32,821 → 24,215 (-8,606) | $0.0421 → $0.0411 (-$0.0009) |"
    `);
  });
});
