import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DocSandbox, docSandbox } from "../helpers/doc-claims.js";
import {
  type DornyRun,
  type MikepenzResult,
  readAsDorny,
  readAsMikepenz,
} from "../helpers/junit-consumers.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { httpError } from "../helpers/replies.js";

// `agent-run report --junit` over real runs of every kind of outcome, read as dorny/test-reporter
// and mikepenz/action-junit-report read it (test/helpers/junit-consumers.ts).

/** fix-failing-test with two checks it cannot pass. */
const FIX_TASK = `# fix-failing-test with two checks the scripted run cannot pass.
prompt: |
  The test suite fails (run it with \`node --test test/\`). Find the bug in src/ and fix it.
  Do not change the tests. Run the tests again to confirm they pass.
checks:
  - run: node --test test/
  - final_text_matches: all green
    name: says all green
  - file_exists: CHANGELOG.md
workspace: ../fixtures/workspaces/calculator
replies: ../fixtures/replies/fix-failing-test.yaml
`;

/** The task file lines of FIX_TASK's failing checks. */
const lineOf = (start: string) =>
  FIX_TASK.split("\n").findIndex((line) => line.startsWith(start)) + 1;
const ALL_GREEN_LINE = lineOf("  - final_text_matches");
const CHANGELOG_LINE = lineOf("  - file_exists");

let box: DocSandbox;
let junit: string;
let junitFileLine: string;
let durations: Map<string, number>;

/** Runs that end every way JUnit distinguishes, in four batch folders. */
async function runEveryOutcome(): Promise<void> {
  await writeFile(join(box.root, "tasks/fix.yaml"), FIX_TASK);
  await box.sh("agent-run --offline tasks/fix.yaml tasks/text-protocol-default-name.yaml --out a");
  await box.sh("agent-run --offline tasks/fix-failing-test.yaml --max-steps 2 --out b");
  await using server = await startMockHttpServer();
  server.queue(
    httpError(401, {
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    }),
  );
  const refused = await box.sh(
    "agent-run -j 1 tasks/rename-function.yaml tasks/think-add-shout.yaml --out c",
    { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url, AGENT_RUN_MAX_RETRIES: "0" },
  );
  expect(refused.code).toBe(2);
  await box.sh(
    "agent-run --offline -j 1 --budget-tokens 1000 tasks/add-farewell.yaml tasks/deepseek-add-divide.yaml --out d",
  );
}

beforeAll(async () => {
  box = await docSandbox();
  await runEveryOutcome();
  const report = await box.sh(
    "agent-run report a b c d --junit junit.xml --json report.json && agent-run report a b c d --junit file-line.xml --junit-file-line",
  );
  expect(report.code).toBe(0);
  junit = await readFile(join(box.root, "junit.xml"), "utf8");
  junitFileLine = await readFile(join(box.root, "file-line.xml"), "utf8");
  const json = JSON.parse(await readFile(join(box.root, "report.json"), "utf8")) as {
    tasks: { name: string; runs: { duration_ms: number }[] }[];
  };
  durations = new Map(json.tasks.map((task) => [task.name, task.runs[0]?.duration_ms ?? -1]));
}, 120_000);
afterAll(async () => {
  await box[Symbol.asyncDispose]();
});

const dornyTests = (run: DornyRun) =>
  new Map(
    run.suites
      .flatMap((suite) => suite.groups.flatMap((group) => group.tests))
      .map((t) => [t.name, t]),
  );

describe("dorny/test-reporter's java-junit parser (xml2js)", () => {
  test("one suite named agent-run; a group per task file; each task's result", async () => {
    const run = await readAsDorny(junit);

    expect(run.suites.map((suite) => suite.name)).toEqual(["agent-run"]);
    const groups = run.suites[0]?.groups ?? [];
    expect(groups.map((group) => [group.name, group.tests.map((test) => test.name)])).toEqual([
      ["tasks/add-farewell", ["add-farewell"]],
      ["tasks/deepseek-add-divide", ["deepseek-add-divide"]],
      ["tasks/fix", ["fix"]],
      ["tasks/fix-failing-test", ["fix-failing-test"]],
      ["tasks/rename-function", ["rename-function"]],
      ["tasks/text-protocol-default-name", ["text-protocol-default-name"]],
      ["tasks/think-add-shout", ["think-add-shout"]],
    ]);
    const results = Object.fromEntries([...dornyTests(run)].map(([name, t]) => [name, t.result]));
    expect(results).toEqual({
      "add-farewell": "failed", // stopped by the batch budget while it ran
      "deepseek-add-divide": "skipped", // never started: the budget was spent
      fix: "failed",
      "fix-failing-test": "failed",
      "rename-function": "failed", // the API refused its key
      "text-protocol-default-name": "success",
      "think-add-shout": "failed", // not run because of the refused key: an error, not a skip
    });
  });

  test("times in milliseconds, as report.json has them", async () => {
    const run = await readAsDorny(junit);
    for (const [name, test] of dornyTests(run)) {
      expect(test.timeMs, name).toBeCloseTo(durations.get(name) ?? Number.NaN, 0);
    }
    const total = [...durations.values()].reduce((sum, ms) => sum + ms, 0);
    expect(run.suites[0]?.timeMs).toBeCloseTo(total, -1);
  });

  test("a failed task's message is its type and status with the failed checks; the body has each check's line", async () => {
    const tests = dornyTests(await readAsDorny(junit));

    expect(tests.get("fix")?.error?.message).toBe(
      "failed_checks: status: completed; failed checks: says all green, file_exists: CHANGELOG.md",
    );
    expect(tests.get("fix")?.error?.details).toContain(
      `(final_text_matches, tasks/fix.yaml:${ALL_GREEN_LINE})`,
    );
    expect(tests.get("fix")?.error?.details).toContain(
      `(file_exists, tasks/fix.yaml:${CHANGELOG_LINE})`,
    );
    expect(tests.get("fix-failing-test")?.error?.message).toMatch(/^max_steps: status: max_steps/);
    expect(tests.get("think-add-shout")?.error?.message).toMatch(
      /^refused_key: not run: the API refused the key/,
    );
    expect(tests.get("rename-function")?.error?.message).toMatch(/^error: status: error/);
  });
});

describe("mikepenz/action-junit-report (xml-js)", () => {
  let plain: MikepenzResult;
  let fileLine: MikepenzResult;
  beforeAll(async () => {
    plain = await readAsMikepenz(junit, box.root);
    fileLine = await readAsMikepenz(junitFileLine, box.root);
  });
  const byTitle = (result: MikepenzResult, name: string) =>
    result.annotations.find((annotation) => annotation.title.endsWith(`.${name}`));

  test("counts: 7 tests, 1 skipped (the budget's), 5 failed, 1 passed", () => {
    for (const result of [plain, fileLine]) {
      expect([result.totalCount, result.skipped, result.failed, result.passed]).toEqual([
        7, 1, 5, 1,
      ]);
    }
  });

  test("a refused-key task is a failure annotation, not a skipped one", () => {
    expect(byTitle(plain, "think-add-shout")).toMatchObject({
      status: "failure",
      level: "failure",
      message: expect.stringMatching(/^not run: the API refused the key/),
    });
    expect(byTitle(plain, "deepseek-add-divide")).toMatchObject({
      status: "skipped",
      level: "notice",
    });
  });

  test("by default the classname finds the task file, and the line is a failed check's", () => {
    expect(byTitle(plain, "fix")).toMatchObject({
      path: "tasks/fix.yaml",
      line: CHANGELOG_LINE, // the last `tasks/fix….yaml:N` in the body: the second failed check
      message: "status: completed; failed checks: says all green, file_exists: CHANGELOG.md",
    });
    expect(byTitle(plain, "fix-failing-test")?.path).toBe("tasks/fix-failing-test.yaml");
  });

  test("with --junit-file-line, file and line come from the attributes: the first failed check", () => {
    expect(byTitle(fileLine, "fix")).toMatchObject({
      path: "tasks/fix.yaml",
      line: ALL_GREEN_LINE,
    });
    const failedTasks = fileLine.annotations.filter((annotation) => annotation.level === "failure");
    for (const annotation of failedTasks) expect(annotation.path).toMatch(/^tasks\/[\w-]+\.yaml$/);
  });
});
