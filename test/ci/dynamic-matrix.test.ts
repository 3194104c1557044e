import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { EXAMPLE_TASKS } from "../helpers/example-tasks.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// docs/ci/dynamic-matrix.yml's list step, run as the runner runs it (bash -eo pipefail) with this
// checkout's agent-run and the example tasks: what it writes to $GITHUB_OUTPUT is what the matrix
// reads with fromJSON. actionlint checks the whole workflow (test/ci/actionlint.test.ts).

type Workflow = {
  jobs: Record<string, { steps?: Array<{ id?: string; run?: string }>; strategy?: unknown }>;
};

const WORKFLOW = parse(readFileSync("docs/ci/dynamic-matrix.yml", "utf8")) as Workflow;
const LIST_SCRIPT = WORKFLOW.jobs.list?.steps?.find((step) => step.id === "list")?.run ?? "";

/** The list step's script with this checkout's agent-run and `tasks` instead of the evals. */
function listStep(tasks: string): string {
  return LIST_SCRIPT.replace(
    ".agent-run-tool/bin/agent-run.js",
    resolve("bin/agent-run.js"),
  ).replace("'evals/*.yaml'", tasks);
}

async function runListStep(tasks: string, files: Record<string, string> = {}) {
  await using ws = await tmpWorkspace({ files: { "output.txt": "", ...files } });
  const result = spawnSync(
    "bash",
    ["--noprofile", "--norc", "-eo", "pipefail", "-c", listStep(tasks)],
    {
      cwd: resolve("."),
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_OUTPUT: ws.path("output.txt") },
    },
  );
  return {
    code: result.status,
    stderr: result.stderr,
    output: readFileSync(ws.path("output.txt"), "utf8"),
  };
}

describe("docs/ci/dynamic-matrix.yml", () => {
  test("the list step writes tasks=<one line of JSON>, one matrix entry per task with a usable artifact name", async () => {
    const run = await runListStep("'tasks/*.yaml'");

    expect(run.code).toBe(0);
    const lines = run.output.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const tasks = JSON.parse(lines[0]?.replace(/^tasks=/, "") ?? "") as Array<{
      name: string;
      file: string;
    }>;
    expect(tasks.map((task) => task.name).sort()).toEqual(EXAMPLE_TASKS);
    for (const task of tasks) {
      // upload-artifact refuses " : < > | * ? \ / in names; task names are [A-Za-z0-9._-].
      expect(`agent-run-task-${task.name}`).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(task.file).toMatch(/^tasks\/[^/]+\.yaml$/);
    }
  });

  test("a bad task file fails the step (so no task job starts) and writes no output", async () => {
    const run = await runListStep("'tasks/*.yaml' fixtures/bad-tasks/unknown-tool.yaml");

    expect(run.code).toBe(2);
    expect(run.output).toBe("");
    expect(run.stderr).toMatch(/problem in the task files; nothing was run/);
  });

  test("the task jobs' matrix is the list's output, and they skip an empty list", () => {
    const task = WORKFLOW.jobs.task as unknown as {
      if: string;
      strategy: { matrix: { task: string } };
    };

    expect(task.strategy.matrix.task).toBe(`\${{ fromJSON(needs.list.outputs.tasks) }}`);
    expect(task.if).toBe("needs.list.outputs.tasks != '[]'");
  });
});
