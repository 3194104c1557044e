import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { EXAMPLE_TASKS } from "../helpers/example-tasks.js";
import { strictAjv } from "../helpers/json-schema-validator.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const ALL = "tasks/*.yaml";
const TASK_COUNT = EXAMPLE_TASKS.length;

type Listed = Array<{ name: string; file: string; model: string }>;

async function listJson(args: string[], env: Record<string, string> = {}): Promise<Listed> {
  const run = await runCli(["list", "--json", ...args], { env });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout.split("\n"), "one line, as GitHub's step outputs need").toHaveLength(1);
  return JSON.parse(run.stdout) as Listed;
}

describe("agent-run list", () => {
  test("--json: the example tasks, valid against schema/task-list.schema.json", async () => {
    const list = await listJson([ALL]);
    const validate = strictAjv().compile(
      JSON.parse(readFileSync("schema/task-list.schema.json", "utf8")) as object,
    );

    expect(validate(list), JSON.stringify(validate.errors)).toBe(true);
    expect(list).toHaveLength(TASK_COUNT);
    expect(list.find((task) => task.name === "fix-failing-test")).toEqual({
      name: "fix-failing-test",
      file: "tasks/fix-failing-test.yaml",
      model: "claude-sonnet-5-5",
      provider: "anthropic",
      limits: {
        max_steps: 12,
        max_tokens: 200_000,
        max_output_tokens: 8_192,
        max_cost_usd: null,
        timeout_ms: 300_000,
        max_context_tokens: 150_000,
      },
    });
  });

  test("the flags apply as in a run: --model, the limit overrides", async () => {
    const [task] = await listJson([
      "tasks/fix-failing-test.yaml",
      "--model",
      "claude-opus-5",
      "--max-steps",
      "3",
      "--max-cost",
      "0.25",
      "--timeout",
      "90s",
    ]);

    expect(task).toMatchObject({
      model: "claude-opus-5",
      limits: { max_steps: 3, max_cost_usd: 0.25, timeout_ms: 90_000 },
    });
  });

  test("without --json: a table and the count", async () => {
    const run = await runCli(["list", "tasks/fix-failing-test.yaml", "tasks/rename-function.yaml"]);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatchInlineSnapshot(`
      "| task             | file                        | model             |
      | ---------------- | --------------------------- | ----------------- |
      | fix-failing-test | tasks/fix-failing-test.yaml | claude-sonnet-5-5 |
      | rename-function  | tasks/rename-function.yaml  | claude-sonnet-5-5 |

      2 tasks"
    `);
  });

  test("invalid task files are refused as run refuses them: exit 2, nothing on stdout", async () => {
    const run = await runCli(["list", "--json", "fixtures/bad-tasks/unknown-tool.yaml"]);

    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/problem in the task files; nothing was run/);
  });

  test("a shard with no task lists an empty array (a matrix job should skip it)", async () => {
    await using ws = await tmpWorkspace({
      files: { "t.yaml": "prompt: Go.\nworkspace: .\n" },
    });

    expect(await listJson([ws.path("t.yaml"), "--shard", "2/2"])).toEqual([]);
  });
});

describe("--shard auto picks the same part as --shard I/N", () => {
  test("JOB_COMPLETION_INDEX i with AGENT_RUN_SHARD_COUNT n (or --shard-count n) is --shard i+1/n", async () => {
    for (const count of [1, 2, 3, 4]) {
      for (let index = 0; index < count; index += 1) {
        const explicit = await listJson([ALL, "--shard", `${index + 1}/${count}`]);
        const fromEnv = await listJson([ALL, "--shard", "auto"], {
          JOB_COMPLETION_INDEX: String(index),
          AGENT_RUN_SHARD_COUNT: String(count),
        });
        const fromFlag = await listJson([ALL, "--shard", "auto", "--shard-count", String(count)], {
          JOB_COMPLETION_INDEX: String(index),
        });

        expect(fromEnv, `${index} of ${count}`).toEqual(explicit);
        expect(fromFlag, `${index} of ${count}`).toEqual(explicit);
      }
    }
  });

  test("a run with --shard auto runs the tasks of --shard I/N, and says where its part came from", async () => {
    await using ws = await tmpWorkspace();
    const tasks = [
      "tasks/add-farewell.yaml",
      "tasks/fix-failing-test.yaml",
      "tasks/rename-function.yaml",
    ];
    const auto = await runCli(["--offline", ...tasks, "--shard", "auto", "-o", ws.path("auto")], {
      env: { JOB_COMPLETION_INDEX: "1", AGENT_RUN_SHARD_COUNT: "2" },
    });
    const explicit = await runCli([
      "--offline",
      ...tasks,
      "--shard",
      "2/2",
      "-o",
      ws.path("explicit"),
    ]);

    expect([auto.exitCode, explicit.exitCode]).toEqual([0, 0]);
    expect(auto.stderr).toContain(
      "agent-run: shard 2/2 (JOB_COMPLETION_INDEX=1, AGENT_RUN_SHARD_COUNT=2): 1 of 3 tasks",
    );
    expect(explicit.stderr).toContain("agent-run: shard 2/2: 1 of 3 tasks");
    const ran = (stdout: string) =>
      stdout
        .split("\n")
        .filter((line) => /^\| (add-farewell|fix-failing-test|rename-function) /.test(line));
    expect(ran(auto.stdout)).toEqual([expect.stringMatching(/^\| fix-failing-test /)]);
    expect(ran(explicit.stdout)).toEqual([expect.stringMatching(/^\| fix-failing-test /)]);
  });

  test.each([
    [{}, "no shard index in the environment; expected one of JOB_COMPLETION_INDEX"],
    [
      { JOB_COMPLETION_INDEX: "abc", AGENT_RUN_SHARD_COUNT: "2" },
      'JOB_COMPLETION_INDEX: expected a whole number from 0 to 1,000,000, got "abc"',
    ],
    [{ JOB_COMPLETION_INDEX: "-1", AGENT_RUN_SHARD_COUNT: "2" }, 'got "-1"'],
    [{ JOB_COMPLETION_INDEX: "1e3", AGENT_RUN_SHARD_COUNT: "2" }, 'got "1e3"'],
    [
      { JOB_COMPLETION_INDEX: "1".repeat(400), AGENT_RUN_SHARD_COUNT: "2" },
      "JOB_COMPLETION_INDEX: expected a whole number",
    ],
    [
      { JOB_COMPLETION_INDEX: "2", AGENT_RUN_SHARD_COUNT: "2" },
      "JOB_COMPLETION_INDEX=2 is out of range for 2 shards",
    ],
    [{ JOB_COMPLETION_INDEX: "0" }, "Kubernetes does not export the shard count"],
  ])("environment %j: exit 2 before anything runs", async (env, message) => {
    await using ws = await tmpWorkspace();
    const run = await runCli(["--offline", ALL, "--shard", "auto", "-o", ws.path("out")], { env });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^agent-run: --shard auto: /);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe("");
  });

  test("--shard-count without --shard auto is a usage error", async () => {
    const run = await runCli(["list", ALL, "--shard", "1/2", "--shard-count", "2"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      "agent-run: --shard-count goes with --shard auto (in --shard I/N, N is the count)",
    );
  });
});
