import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { autoShard, parseShard, selectShard } from "../../src/batch/shard.js";
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

  test.each([
    "0/3",
    "4/3",
    "1/0",
    "a/b",
    "2",
    "1/1000001",
    "9007199254740993/9007199254740993",
    `1/${"9".repeat(400)}`,
  ])("%s is refused", (text) => {
    expect(() => parseShard(text)).toThrow(/--shard: expected I\/N with 1 <= I <= N <= 1,000,000/);
  });

  test("a million shards is the most", () => {
    expect(parseShard("1000000/1000000")).toEqual({ index: 1_000_000, count: 1_000_000 });
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

describe("--shard auto", () => {
  test("a Kubernetes index counts from 0: index I-1 with AGENT_RUN_SHARD_COUNT=N is I/N", () => {
    const env = { JOB_COMPLETION_INDEX: "1", AGENT_RUN_SHARD_COUNT: "3" };

    expect(autoShard(env, undefined)).toEqual({
      index: 2,
      count: 3,
      from: "JOB_COMPLETION_INDEX=1, AGENT_RUN_SHARD_COUNT=3",
    });
    expect(autoShard({ JOB_COMPLETION_INDEX: "0" }, 4)).toEqual({
      index: 1,
      count: 4,
      from: "JOB_COMPLETION_INDEX=0, --shard-count 4",
    });
    // The flag wins over the variable, as --prices wins over AGENT_RUN_PRICES.
    expect(autoShard(env, 5)).toMatchObject({ index: 2, count: 5 });
  });

  test("Buildkite's and CircleCI's variables, each from 0", () => {
    expect(
      autoShard({ BUILDKITE_PARALLEL_JOB: "0", BUILDKITE_PARALLEL_JOB_COUNT: "2" }, undefined),
    ).toEqual({
      index: 1,
      count: 2,
      from: "BUILDKITE_PARALLEL_JOB=0, BUILDKITE_PARALLEL_JOB_COUNT=2",
    });
    expect(autoShard({ CIRCLE_NODE_INDEX: "3", CIRCLE_NODE_TOTAL: "4" }, 4)).toEqual({
      index: 4,
      count: 4,
      from: "CIRCLE_NODE_INDEX=3, CIRCLE_NODE_TOTAL=4",
    });
  });

  test("Kubernetes is read first when several systems' variables are set", () => {
    const env = {
      JOB_COMPLETION_INDEX: "0",
      AGENT_RUN_SHARD_COUNT: "2",
      CIRCLE_NODE_INDEX: "1",
      CIRCLE_NODE_TOTAL: "2",
    };

    expect(autoShard(env, undefined)).toMatchObject({ index: 1, count: 2 });
  });

  test("no index in the environment (or only empty ones) names every variable it looked for", () => {
    for (const env of [{}, { JOB_COMPLETION_INDEX: "", CIRCLE_NODE_INDEX: " " }]) {
      expect(() => autoShard(env, 3)).toThrow(
        "--shard auto: no shard index in the environment; expected one of JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), BUILDKITE_PARALLEL_JOB (Buildkite), CIRCLE_NODE_INDEX (CircleCI), or give --shard I/N",
      );
    }
  });

  test("a Kubernetes index without a count asks for one", () => {
    expect(() => autoShard({ JOB_COMPLETION_INDEX: "0" }, undefined)).toThrow(
      /Kubernetes does not export the shard count; set AGENT_RUN_SHARD_COUNT to the Job's completions in its manifest, or pass --shard-count N/,
    );
  });

  test("an index out of range names the variables and the range", () => {
    expect(() =>
      autoShard({ JOB_COMPLETION_INDEX: "3", AGENT_RUN_SHARD_COUNT: "3" }, undefined),
    ).toThrow(
      "--shard auto: JOB_COMPLETION_INDEX=3 is out of range for 3 shards (AGENT_RUN_SHARD_COUNT=3); the index counts from 0 to 2",
    );
    expect(() => autoShard({ CIRCLE_NODE_INDEX: "2", CIRCLE_NODE_TOTAL: "2" }, undefined)).toThrow(
      /CIRCLE_NODE_INDEX=2 is out of range for 2 shards \(CIRCLE_NODE_TOTAL=2\)/,
    );
  });

  test.each([
    "abc",
    "-1",
    "1e3",
    "1.0",
    "+1",
    "0x1",
    " 1",
    "01",
    "Infinity",
    "99999999999999999999",
    "1".repeat(10_000),
  ])("index %j is refused, naming the variable", (value) => {
    expect(() => autoShard({ JOB_COMPLETION_INDEX: value }, 3)).toThrow(
      /^--shard auto: JOB_COMPLETION_INDEX: expected a whole number from 0 to 1,000,000, got /,
    );
  });

  test("a huge value is quoted cut short", () => {
    const error = (() => {
      try {
        autoShard({ JOB_COMPLETION_INDEX: "9".repeat(100_000) }, 3);
      } catch (caught) {
        return caught instanceof Error ? caught.message : "";
      }
      return "";
    })();

    expect(error.length).toBeLessThan(300);
    expect(error).toMatch(/… \(\d+ more chars\)$/);
  });

  test.each(["0", "-2", "2.5", "1e2", "1000001"])(
    "count %j is refused, naming the variable",
    (value) => {
      expect(() =>
        autoShard({ BUILDKITE_PARALLEL_JOB: "0", BUILDKITE_PARALLEL_JOB_COUNT: value }, undefined),
      ).toThrow(/^--shard auto: BUILDKITE_PARALLEL_JOB_COUNT: expected a whole number from 1 to/);
      expect(() =>
        autoShard({ JOB_COMPLETION_INDEX: "0", AGENT_RUN_SHARD_COUNT: value }, undefined),
      ).toThrow(/^--shard auto: AGENT_RUN_SHARD_COUNT: expected a whole number from 1 to/);
    },
  );

  test("a CI system's own count must agree with --shard-count or AGENT_RUN_SHARD_COUNT", () => {
    const circle = { CIRCLE_NODE_INDEX: "0", CIRCLE_NODE_TOTAL: "4" };

    expect(() => autoShard(circle, 3)).toThrow(
      "--shard auto: --shard-count 3 disagrees with CIRCLE_NODE_TOTAL=4 (CircleCI); drop it or make them equal",
    );
    expect(() => autoShard({ ...circle, AGENT_RUN_SHARD_COUNT: "2" }, undefined)).toThrow(
      /AGENT_RUN_SHARD_COUNT=2 disagrees with CIRCLE_NODE_TOTAL=4/,
    );
    expect(() => autoShard({ BUILDKITE_PARALLEL_JOB: "0" }, undefined)).toThrow(
      "--shard auto: BUILDKITE_PARALLEL_JOB is set but BUILDKITE_PARALLEL_JOB_COUNT is not",
    );
  });
});
