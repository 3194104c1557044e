import { describe, expect, test } from "vitest";
import { CLAUDE_EXAMPLES } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const PROGRESS = /^\[(\d+)\/(\d+)\] done, (\d+) failed, (\$[\d.]+) spent(, ~\S+ left)?$/;

/** The verdict line under the final table: `3/3 passed (100.0%), 32,821 tokens, $0.0420`. */
function verdictOf(stdout: string): { failed: number; cost: string } {
  const match = /^(\d+)\/(\d+) passed \([\d.]+%\), [\d,]+ tokens, (\$[\d.]+)/m.exec(stdout);
  return { failed: Number(match?.[2]) - Number(match?.[1]), cost: match?.[3] ?? "" };
}

describe("a batch's progress, off a terminal", () => {
  test.each([
    { concurrency: 1, extra: [] },
    { concurrency: 2, extra: ["--max-steps", "3"] },
  ])(
    "-j $concurrency $extra: a line per finished task, the last as the final table",
    async ({ concurrency, extra }) => {
      await using ws = await tmpWorkspace();
      const args = ["--offline", "-j", String(concurrency), "-o", ws.path("out"), ...extra];

      const run = await spawnCli([...args, ...CLAUDE_EXAMPLES], {});

      const lines = run.stderr.split("\n").filter((line) => PROGRESS.test(line));
      const parsed = lines.map((line) => PROGRESS.exec(line) ?? []);
      const verdict = verdictOf(run.stdout);
      expect(parsed.map((match) => `${match[1]}/${match[2]}`)).toEqual(["1/3", "2/3", "3/3"]);
      expect(parsed.slice(0, 2).every((match) => match[5] !== undefined)).toBe(true);
      expect(parsed[2]?.[5]).toBeUndefined();
      expect([Number(parsed[2]?.[3]), parsed[2]?.[4]]).toEqual([verdict.failed, verdict.cost]);
      expect(verdict.failed).toBe(extra.length === 0 ? 0 : 3);
    },
  );

  test("under GitHub Actions, each line comes after its task's group, never inside one", async () => {
    await using ws = await tmpWorkspace();
    const args = ["--offline", "-j", "2", "-o", ws.path("out"), ...CLAUDE_EXAMPLES];

    const run = await spawnCli(args, { GITHUB_ACTIONS: "true" });

    let isInGroup = false;
    const insideGroups: string[] = [];
    const afterGroups: string[] = [];
    for (const line of run.stderr.split("\n")) {
      if (line.startsWith("::group::")) isInGroup = true;
      else if (line === "::endgroup::") isInGroup = false;
      else if (PROGRESS.test(line)) (isInGroup ? insideGroups : afterGroups).push(line);
    }
    expect(insideGroups).toEqual([]);
    expect(afterGroups.map((line) => line.slice(0, 5))).toEqual(["[1/3]", "[2/3]", "[3/3]"]);
  });
});
