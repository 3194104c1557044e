import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { beforeAll, describe, expect, test } from "vitest";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

const KEY = { ANTHROPIC_API_KEY: "sk-ant-test" };

/** A plan's output with the durations of earlier runs made constant, and no padding in tables. */
function withoutDurations(text: string): string {
  return text
    .replace(/\b\d+(\.\d+)?(ms|s)\b/g, "D")
    .replace(/ +\|/g, " |")
    .replace(/\| +/g, "| ")
    .replace(/-+:? \|/g, "- |");
}

describe("agent-run plan", () => {
  test("prints each task's worst case and the total, runs nothing, exit 0", async () => {
    const run = await runCli(["plan", ...CLAUDE_EXAMPLES], { env: KEY });

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatchInlineSnapshot(`
      "| task             | model             | runs | worst case | bound by   | worst tokens |
      | ---------------- | ----------------- | ---: | ---------: | ---------- | -----------: |
      | add-farewell     | claude-sonnet-5-5 |    1 |      $4.57 | max_steps  |    1,581,920 |
      | fix-failing-test | claude-sonnet-5-5 |    1 |      $1.64 | max_tokens |      358,192 |
      | rename-function  | claude-sonnet-5-5 |    1 |      $3.33 | max_steps  |    1,232,768 |
      | total            |                   |    3 |      $9.53 |            |    3,172,880 |

      worst case $9.53 and 3,172,880 tokens for 3 tasks (3 runs): every limit used up at the model's dearest token prices (README: Forecast)
      expected spend and time: give earlier report.json files with --history FILE"
    `);
  });

  test("--trials and --retry-errors: each task runs K times, each run's worst case counts every attempt", async () => {
    const run = await runCli(
      ["plan", "tasks/fix-failing-test.yaml", "--trials", "3", "--retry-errors", "1"],
      { env: KEY },
    );

    expect(run.exitCode).toBe(0);
    // One run's worst case is 358,192 tokens ($1.634 rounded up): 3 trials of up to 2 attempts each.
    expect(withoutDurations(run.stdout)).toContain(
      "| fix-failing-test | claude-sonnet-5-5 | 3 | $9.80 | max_tokens | 2,149,152 |",
    );
    expect(run.stdout).toContain(
      "worst case $9.80 and 2,149,152 tokens for 1 task (3 runs, each up to 2 attempts with --retry-errors)",
    );
  });

  test("a task's trials: field counts as --trials does", async () => {
    await using ws = await tmpWorkspace();
    const task = await readFile("tasks/fix-failing-test.yaml", "utf8");
    await writeFile(
      ws.path("trials.yaml"),
      `${task.replaceAll("../fixtures/", `${process.cwd()}/fixtures/`)}\ntrials: 4\n`,
    );

    const run = await runCli(["plan", ws.path("trials.yaml")], { env: KEY });

    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toContain("for 1 task (4 runs): every limit");
  });

  test("with --budget-usd alone it says the worst case does not fit, and still exits 0", async () => {
    const run = await runCli(["plan", ...CLAUDE_EXAMPLES, "--budget-usd", "5"], { env: KEY });

    expect(run.exitCode).toBe(0);
    expect(run.stdout.split("\n").at(-1)).toBe(
      "--budget-usd $5.00: the worst case exceeds it; with --refuse-over-budget agent-run refuses to start this batch",
    );
  });

  test("--refuse-over-budget: exit 2 after the forecast, naming the tasks, dearest first", async () => {
    const run = await runCli(
      ["plan", ...CLAUDE_EXAMPLES, "--budget-usd", "5", "--refuse-over-budget"],
      { env: KEY },
    );

    expect(run.exitCode).toBe(2);
    expect(run.stdout).toContain("| total            |                   |    3 |      $9.53 |");
    expect(run.stderr).toBe(
      "agent-run: the worst case, $9.53, exceeds --budget-usd $5.00: add-farewell $4.57, rename-function $3.33 and fix-failing-test $1.64; not started (--refuse-over-budget): lower the tasks' limits (max_cost_usd caps a run's spend) or raise the budget",
    );
  });

  test("a batch that fits its budgets exits 0, and --max-cost bounds every task", async () => {
    const run = await runCli(
      [
        "plan",
        ...CLAUDE_EXAMPLES,
        "--max-cost",
        "0.5",
        "--budget-usd",
        "3",
        "--budget-tokens",
        "5000000",
        "--refuse-over-budget",
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(0);
    expect(withoutDurations(run.stdout)).toContain(
      "| fix-failing-test | claude-sonnet-5-5 | 1 | $0.9570 | max_cost_usd | 358,192 |",
    );
    expect(run.stdout).toMatch(
      /--budget-usd \$3\.00: the worst case fits\n--budget-tokens 5,000,000: the worst case fits$/,
    );
  });

  test("--budget-tokens: a worst case of more tokens is refused too", async () => {
    const run = await runCli(
      ["plan", ...CLAUDE_EXAMPLES, "--budget-tokens", "1000000", "--refuse-over-budget"],
      { env: KEY },
    );

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      "agent-run: the worst case, 3,172,880 tokens, exceeds --budget-tokens 1,000,000: add-farewell 1,581,920, rename-function 1,232,768 and fix-failing-test 358,192; not started (--refuse-over-budget): lower the tasks' limits (max_tokens its tokens) or raise the budget",
    );
    // Both budgets exceeded: the fix names both limits.
    const both = await runCli(
      [
        "plan",
        ...CLAUDE_EXAMPLES,
        "--budget-usd",
        "5",
        "--budget-tokens",
        "1000000",
        "--refuse-over-budget",
      ],
      { env: KEY },
    );
    expect(both.stderr).toMatch(
      /; and the worst case, 3,172,880 tokens, exceeds .*: lower the tasks' limits \(max_cost_usd caps a run's spend, max_tokens its tokens\) or raise the budget$/,
    );
  });

  test("a model without a price: worst case unknown (not $0), and the total says so", async () => {
    const run = await runCli(["plan", "tasks/fix-failing-test.yaml", "--model", "my-model"], {
      env: KEY,
    });

    expect(run.exitCode).toBe(0);
    expect(withoutDurations(run.stdout)).toContain(
      "| fix-failing-test | my-model | 1 | unknown | max_tokens | 358,192 |\n| total | | 1 | $0.0000 + unknown | | 358,192 |",
    );
    expect(run.stdout).toContain("worst case $0.0000 + unknown and 358,192 tokens for 1 task");
    expect(run.stdout).toContain(
      "no price is known for the model of fix-failing-test (my-model): their worst case is unknown, not counted above; add prices with --prices FILE",
    );
  });

  test("validates like run: a USD budget with an unpriced model, a bad flag, a bad task file", async () => {
    const unpriced = await runCli(
      ["plan", "tasks/fix-failing-test.yaml", "--model", "my-model", "--budget-usd", "1"],
      { env: KEY },
    );
    const badFlag = await runCli(["plan", ...CLAUDE_EXAMPLES, "--budget-usd", "abc"]);
    const badTask = await runCli(["plan", "fixtures/bad-tasks/unknown-tool.yaml"]);

    expect([unpriced.exitCode, badFlag.exitCode, badTask.exitCode]).toEqual([2, 2, 2]);
    expect(unpriced.stderr).toMatch(
      /no price is known for the model of fix-failing-test \(my-model\)/,
    );
    expect(badFlag.stderr).toMatch(/--budget-usd: expected a positive amount/);
    expect(badTask.stderr).toMatch(/problem in the task files; nothing was run/);
    expect(unpriced.stdout + badFlag.stdout + badTask.stdout).toBe("");
  });

  test("without a key it warns that a run here would not start, and still forecasts", async () => {
    const run = await runCli(["plan", ...CLAUDE_EXAMPLES]);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe(
      "agent-run: warning: ANTHROPIC_API_KEY not set here, so a run of 3 of these tasks on this machine would not start",
    );
  });

  test("--offline checks the replies files instead of keys", async () => {
    await using ws = await tmpWorkspace({
      files: { "t.yaml": "prompt: Go.\nworkspace: .\nreplies: missing.yaml\n" },
    });
    const run = await runCli(["plan", "--offline", ws.path("t.yaml")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/missing\.yaml/);
  });

  test("--shard: the shard's tasks only", async () => {
    const run = await runCli(["plan", ...CLAUDE_EXAMPLES, "--shard", "2/2"], { env: KEY });

    expect(run.stderr).toBe("agent-run: shard 2/2: 1 of 3 tasks");
    expect(run.stdout.split("\n").filter((line) => line.startsWith("| "))).toHaveLength(4);
    expect(run.stdout).toContain("| fix-failing-test |");
  });
});

describe("agent-run plan --history", () => {
  let ws: TmpWorkspace;
  beforeAll(async () => {
    ws = await tmpWorkspace();
    const batch = await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", ws.path("earlier")]);
    expect(batch.exitCode).toBe(0);
    return () => ws[Symbol.asyncDispose]();
  }, 60_000);

  test("adds what the earlier runs let one expect; a batch folder stands for its report.json", async () => {
    const run = await runCli(
      [
        "plan",
        ...CLAUDE_EXAMPLES,
        "tasks/think-add-shout.yaml",
        "--history",
        ws.path("earlier"),
        "-j",
        "2",
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(0);
    expect(withoutDurations(run.stdout)).toMatchInlineSnapshot(`
      "| task | model | runs | worst case | bound by | worst tokens | expected | time | history |
      | - | - | - | - | - | - | - | - | - |
      | add-farewell | claude-sonnet-5-5 | 1 | $4.57 | max_steps | 1,581,920 | $0.0159 | D | 1 run |
      | fix-failing-test | claude-sonnet-5-5 | 1 | $1.64 | max_tokens | 358,192 | $0.0143 | D | 1 run |
      | rename-function | claude-sonnet-5-5 | 1 | $3.33 | max_steps | 1,232,768 | $0.0118 | D | 1 run |
      | think-add-shout | claude-sonnet-5-5 | 1 | $4.28 | max_steps | 1,328,000 | - | - | none |
      | total | | 4 | $13.81 | | 4,500,880 | $0.0421 | D | 3/4 tasks |

      worst case $13.81 and 4,500,880 tokens for 4 tasks (4 runs): every limit used up at the model's dearest token prices (README: Forecast)
      expected $0.0421 and D of run time (about D at --concurrency 2), from the earlier runs of 3 of 4 tasks
      no earlier run with the same model, so nothing expected, for think-add-shout"
    `);
  });

  test("two reports of the same tasks: the means; another model's runs do not count", async () => {
    const report = await readFile(ws.path("earlier/report.json"), "utf8");
    const json = JSON.parse(report) as {
      tasks: Array<{ runs: Array<{ cost_usd: number; model: string }> }>;
    };
    const runs = json.tasks.flatMap((task) => task.runs);
    for (const run of runs) run.cost_usd *= 3;
    await writeFile(ws.path("dearer.json"), JSON.stringify(json));
    for (const run of runs) run.model = "claude-opus-5";
    await writeFile(ws.path("opus.json"), JSON.stringify(json));

    const run = await runCli(
      [
        "plan",
        "tasks/add-farewell.yaml",
        "--history",
        ws.path("earlier/report.json"),
        "--history",
        ws.path("{dearer,opus}.json"),
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(0);
    expect(withoutDurations(run.stdout)).toContain(
      "| add-farewell | claude-sonnet-5-5 | 1 | $4.57 | max_steps | 1,581,920 | $0.0318 | D | 2 runs |",
    );
  });

  test.each([
    ["not JSON", "{", /not valid JSON/],
    [
      "another file",
      '{"schema_version": 2, "tasks": [{"name": "x"}]}',
      /tasks\.0\.task_file: required field is missing/,
    ],
    [
      "a newer version",
      '{"schema_version": 99, "tasks": []}',
      /schema_version 99 is newer than this agent-run understands/,
    ],
    [
      "a task name that is a path",
      '{"schema_version": 2, "tasks": [{"name": "../x"}]}',
      /is not a task name/,
    ],
  ])("a hostile report (%s) is refused with exit 2, naming the file", async (_, text, message) => {
    await writeFile(ws.path("bad.json"), text);

    const run = await runCli(["plan", ...CLAUDE_EXAMPLES, "--history", ws.path("bad.json")], {
      env: KEY,
    });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain(ws.path("bad.json"));
  });

  test("a report of terminal escapes is quoted with them shown, not sent to the terminal", async () => {
    await writeFile(ws.path("escapes.json"), "\u001b]0;owned\u0007\u001b[2J");

    const run = await runCli(["plan", ...CLAUDE_EXAMPLES, "--history", ws.path("escapes.json")], {
      env: KEY,
    });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/not valid JSON: .*\\x1b/);
    expect(run.stderr).not.toContain("\u001b");
    expect(run.stderr).not.toContain("\u0007");
  });

  test("a missing file, a folder without report.json, a glob matching nothing: exit 2", async () => {
    const runs = await Promise.all(
      [ws.path("nope.json"), ws.root, ws.path("none-*.json")].map((path) =>
        runCli(["plan", ...CLAUDE_EXAMPLES, "--history", path], { env: KEY }),
      ),
    );

    expect(runs.map((run) => run.exitCode)).toEqual([2, 2, 2]);
    expect(runs[0]?.stderr).toMatch(/--history .*nope\.json: cannot read/);
    expect(runs[1]?.stderr).toMatch(/--history .*report\.json: cannot read/);
    expect(runs[2]?.stderr).toMatch(/none-\*\.json: matched no reports/);
  });
});

describe("agent-run run with the forecast's flags", () => {
  test("--dry-run prints the plan's forecast and runs nothing", async () => {
    await using ws = await tmpWorkspace();
    const dry = await runCli(["--offline", ...CLAUDE_EXAMPLES, "--dry-run", "-o", ws.path("out")]);
    const plan = await runCli(["plan", "--offline", ...CLAUDE_EXAMPLES]);

    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toBe(plan.stdout);
    expect(existsSync(ws.path("out"))).toBe(false);
  });

  test("--refuse-over-budget refuses to start an over-budget batch: exit 2, no output folder", async () => {
    await using ws = await tmpWorkspace();
    const run = await runCli([
      "--offline",
      ...CLAUDE_EXAMPLES,
      "--budget-usd",
      "1",
      "--refuse-over-budget",
      "-o",
      ws.path("out"),
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /^agent-run: the worst case, \$9\.53, exceeds --budget-usd \$1\.00: add-farewell/,
    );
    expect(run.stdout).toBe("");
    expect(existsSync(ws.path("out"))).toBe(false);
  });

  test("--refuse-over-budget lets a batch that fits run", async () => {
    await using ws = await tmpWorkspace();
    const run = await runCli([
      "--offline",
      "tasks/fix-failing-test.yaml",
      "--max-cost",
      "0.5",
      "--budget-usd",
      "1",
      "--refuse-over-budget",
      "-o",
      ws.path("out"),
    ]);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("1/1 passed");
  });

  test.each([
    [
      ["--refuse-over-budget"],
      "--refuse-over-budget compares the worst case with a budget; give --budget-usd USD or --budget-tokens N",
    ],
    [
      ["--history", "r.json"],
      "--history is read by the forecast: use it with agent-run plan or --dry-run",
    ],
  ])("%j alone is a usage error", async (flags, message) => {
    const run = await runCli(["--offline", ...CLAUDE_EXAMPLES, ...flags]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`agent-run: ${message}`);
  });
});
