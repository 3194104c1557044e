import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { parseShard, selectShard } from "../../src/batch/shard.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const NAMES = [
  "delta",
  "alpha",
  "golf",
  "charlie",
  "echo",
  "bravo",
  "foxtrot",
  "hotel",
  "india",
  "juliet",
  "kilo",
];

describe("--shard I/N", () => {
  test("for 1 <= N <= 7 the shards are disjoint, cover every task, and differ in size by at most one", () => {
    const tasks = NAMES.map((name) => ({ name }));
    for (let count = 1; count <= 7; count += 1) {
      const shards = Array.from({ length: count }, (_, index) =>
        selectShard(tasks, { index: index + 1, count }).map((task) => task.name),
      );
      const all = shards.flat();
      expect(new Set(all).size, `N=${count}: disjoint`).toBe(all.length);
      expect([...all].sort(), `N=${count}: cover`).toEqual([...NAMES].sort());
      const sizes = shards.map((shard) => shard.length);
      expect(Math.max(...sizes) - Math.min(...sizes), `N=${count}: balanced`).toBeLessThanOrEqual(
        1,
      );
    }
  });

  test("the same I/N picks the same tasks whatever the order they were given in", () => {
    const forward = selectShard(
      NAMES.map((name) => ({ name })),
      { index: 2, count: 3 },
    );
    const backward = selectShard(
      [...NAMES].reverse().map((name) => ({ name })),
      { index: 2, count: 3 },
    );

    expect(backward).toEqual(forward);
  });

  test.each(["0/3", "4/3", "1/0", "a/b", "2"])("%s is refused", (text) => {
    expect(() => parseShard(text)).toThrow(/--shard: expected I\/N with 1 <= I <= N/);
  });

  test("a batch split into 3 shards and reported together gives the report of one run", async () => {
    const files: Record<string, string> = {
      "ws/a.txt": "a\n",
      "r.yaml":
        "- content: [{ type: text, text: done }]\n  usage: { input_tokens: 100, output_tokens: 10 }\n",
    };
    for (const name of NAMES.slice(0, 7))
      files[`tasks/${name}.yaml`] =
        "prompt: Go.\nworkspace: ../ws\nreplies: ../r.yaml\nchecks:\n  - file_exists: a.txt\n";
    await using dir = await tmpWorkspace({ files });
    for (const shard of ["1/3", "2/3", "3/3"]) {
      const run = await runCli([
        "--offline",
        dir.path("tasks/*.yaml"),
        "--shard",
        shard,
        "--out",
        dir.path(`shard-${shard[0]}`),
      ]);
      expect(run.exitCode).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`shard ${shard}: [23] of 7 tasks`));
    }
    expect(
      (await runCli(["--offline", dir.path("tasks/*.yaml"), "--out", dir.path("whole")])).exitCode,
    ).toBe(0);

    await runCli([
      "report",
      dir.path("shard-1"),
      dir.path("shard-2"),
      dir.path("shard-3"),
      "--json",
      dir.path("merged.json"),
    ]);
    await runCli(["report", dir.path("whole"), "--json", dir.path("single.json")]);
    const withoutDurations = (text: string) =>
      JSON.parse(text.replace(/"duration_ms": \d+/g, '"duration_ms": 0'));
    expect(withoutDurations(await readFile(dir.path("merged.json"), "utf8"))).toEqual(
      withoutDurations(await readFile(dir.path("single.json"), "utf8")),
    );
  });
});
