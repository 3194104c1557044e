import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { XMLParser } from "fast-xml-parser";
import { beforeAll, describe, expect, test } from "vitest";
import type { ApiMessage } from "../../src/model/model-client.js";
import { loadReplies } from "../../src/task/load-replies.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { CLAUDE_EXAMPLES, type CliRun, runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";
import { isXmllintUsable, JUNIT_SCHEMAS, schemaErrors, suitesOf } from "../helpers/xmllint.js";

// Issue 18, section 1, "done when": three trials of the example tasks against a model server that
// fails one trial give the right pass@k, pass^k and flaky flag, in every report a user reads.

type Report = {
  schema_version: number;
  tasks: Array<{
    name: string;
    trials: number;
    passed_trials: number;
    pass_rate: number;
    flaky: boolean;
    passed: boolean;
    runs: Array<{ trial: number; attempts: number; status: string; passed: boolean }>;
  }>;
  totals: Record<string, unknown>;
};

/** Each example task's scripted replies, served by the mock server as the API would. */
async function examplesReplies(): Promise<Map<string, ApiMessage[]>> {
  const byTask = new Map<string, ApiMessage[]>();
  for (const file of CLAUDE_EXAMPLES) {
    const name = file.replace(/^tasks\/(.*)\.yaml$/, "$1");
    byTask.set(name, await loadReplies(`fixtures/replies/${name}.yaml`));
  }
  return byTask;
}

describe("three trials of the example tasks, one of which fails", () => {
  let dir: TmpWorkspace;
  let run: CliRun;
  let report: Report;
  let requestCount: number;

  beforeAll(async () => {
    dir = await tmpWorkspace();
    await using server = await startMockHttpServer();
    const replies = await examplesReplies();
    // -j 1: the trials ask in order, task by task, so the queue is theirs in that order.
    for (const name of ["add-farewell", "fix-failing-test", "rename-function"]) {
      for (const trial of [1, 2, 3]) {
        if (name === "fix-failing-test" && trial === 2) {
          // The model gives up at once: the run completes, and its checks fail.
          server.queue(reply().text("I could not find the bug.").usage(1000, 20));
        } else {
          server.queue(...(replies.get(name) ?? []));
        }
      }
    }
    run = await runCli(["--trials", "3", "-j", "1", ...CLAUDE_EXAMPLES, "--out", dir.path("out")], {
      env: {
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: server.url,
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: dir.path("summary.md"),
        GITHUB_OUTPUT: dir.path("output.txt"),
      },
    });
    requestCount = server.requests.length;
    expect(server.remaining(), run.stderr).toBe(0);
    report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8")) as Report;
    return () => dir[Symbol.asyncDispose]();
  });

  test("each trial is an ordinary run folder, OUT/<task>/trial-<n>/, that knows which trial it is", async () => {
    expect(run.exitCode).toBe(1);
    expect(requestCount).toBe(4 * 3 + (5 * 2 + 1) + 4 * 3);
    expect((await readdir(dir.path("out/fix-failing-test"))).sort()).toEqual([
      ".agent-run",
      "trial-1",
      "trial-2",
      "trial-3",
    ]);
    const trial2 = dir.path("out/fix-failing-test/trial-2");
    for (const file of [".agent-run", "transcript.jsonl", "summary.json", "changes.patch"]) {
      expect(existsSync(`${trial2}/${file}`), file).toBe(true);
    }
    expect(await readSummary(trial2)).toMatchObject({
      name: "fix-failing-test",
      status: "completed",
      passed: false,
      error_kind: null,
      trial: { index: 2, count: 3 },
      workspace: `${trial2}/workspace`,
    });
    expect((await readTranscript(trial2))[0]).toMatchObject({
      subtype: "init",
      trial: { index: 2, count: 3 },
    });
  });

  test("report.json: each task's trials, passes and flaky flag, and pass@k and pass^k by hand", () => {
    expect(report.schema_version).toBe(2);
    expect(
      report.tasks.map((task) => [task.name, task.trials, task.passed_trials, task.flaky]),
    ).toEqual([
      ["add-farewell", 3, 3, false],
      ["fix-failing-test", 3, 2, true],
      ["rename-function", 3, 3, false],
    ]);
    const fix = report.tasks[1];
    expect(fix?.pass_rate).toBe(2 / 3);
    expect(fix?.passed).toBe(false);
    expect(fix?.runs.map((trial) => [trial.trial, trial.attempts, trial.passed])).toEqual([
      [1, 1, true],
      [2, 1, false],
      [3, 1, true],
    ]);
    // fix-failing-test: n = 3 trials, c = 2 passed; the other two tasks: n = 3, c = 3 (every k: 1).
    //   pass@1 = 1 - C(1,1)/C(3,1) = 1 - 1/3 = 2/3     pass^1 = C(2,1)/C(3,1) = 2/3
    //   pass@2 = 1 - C(1,2)/C(3,2) = 1 - 0/3 = 1       pass^2 = C(2,2)/C(3,2) = 1/3
    //   pass@3 = 1 - C(1,3)/C(3,3) = 1                 pass^3 = C(2,3)/C(3,3) = 0
    // Means over the three tasks: pass@1 = (1 + 2/3 + 1)/3 = 8/9, pass@2 = pass@3 = 1;
    //   pass^1 = 8/9, pass^2 = (1 + 1/3 + 1)/3 = 7/9, pass^3 = (1 + 0 + 1)/3 = 2/3.
    expect(report.totals).toMatchObject({
      tasks: 3,
      passed: 2,
      failed: 1,
      trials: 9,
      passed_trials: 8,
      flaky_tasks: 1,
      pass_at_k: { "1": 0.888889, "2": 1, "3": 1 },
      pass_hat_k: { "1": 0.888889, "2": 0.777778, "3": 0.666667 },
      statuses: { completed: 9 },
      retries: { attempts: 0, total_tokens: 0, cost_usd: 0 },
    });
  });

  test("the table: a row per task over its trials, flaky marked, then pass@k and pass^k", () => {
    const rows = run.stdout.split("\n");
    expect(rows[0]).toMatch(
      /^\| task +\| passed \| pass rate \| flaky \| statuses +\| checks \| steps \| tokens \| +cost \| files \| duration \|$/,
    );
    expect(run.stdout).toMatch(/^\| add-farewell +\| +3\/3 \| +100\.0% \| +\| 3 completed \|/m);
    expect(run.stdout).toMatch(
      /^\| fix-failing-test +\| +2\/3 \| +66\.7% \| yes +\| 3 completed \| +6\/9 \|/m,
    );
    expect(run.stdout).toMatch(/^\| total +\| +8\/9 \| +88\.9% \| 1 +\| +\| +24\/27 \|/m);
    expect(run.stdout).toContain(
      "2/3 tasks passed every trial; 8/9 trials passed, mean pass@1 88.9%, 1 flaky task;",
    );
    expect(run.stdout).toContain(
      [
        "|   k | pass@k | pass^k |",
        "| --: | -----: | -----: |",
        "|   1 |  88.9% |  88.9% |",
        "|   2 | 100.0% |  77.8% |",
        "|   3 | 100.0% |  66.7% |",
      ].join("\n"),
    );
    expect(run.stdout).toMatch(/^- fix-failing-test\/trial-2: tests pass — /m);
    // The log tells trials apart, as their folders do.
    expect(run.stderr).toMatch(/^\[fix-failing-test\/trial-2\] step 1 final reply/m);
  });

  test("`report` gives the same report.json, and a JUnit test case per trial, flaky named", async () => {
    const again = await runCli([
      "report",
      dir.path("out"),
      "--json",
      dir.path("again.json"),
      "--junit",
      dir.path("junit.xml"),
    ]);

    expect(again.exitCode).toBe(0);
    expect(await readFile(dir.path("again.json"), "utf8")).toBe(
      await readFile(dir.path("out/report.json"), "utf8"),
    );
    const xml = await readFile(dir.path("junit.xml"), "utf8");
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    const cases: Array<Record<string, unknown>> = parsed.testsuites.testsuite.testcase;
    expect(cases.map((testcase) => testcase.name)).toEqual([
      "add-farewell/trial-1",
      "add-farewell/trial-2",
      "add-farewell/trial-3",
      "fix-failing-test/trial-1",
      "fix-failing-test/trial-2",
      "fix-failing-test/trial-3",
      "rename-function/trial-1",
      "rename-function/trial-2",
      "rename-function/trial-3",
    ]);
    expect(cases[4]).toMatchObject({
      classname: "tasks/fix-failing-test",
      failure: {
        type: "failed_checks",
        message: expect.stringMatching(/; flaky: 2 of 3 trials passed$/),
      },
    });
    expect(xml).toMatch(/<testsuite name="agent-run" tests="9" failures="1" errors="0"/);
  });

  test.skipIf(!isXmllintUsable)("the trials' JUnit file is valid for both schemas", async () => {
    const xml = await readFile(dir.path("junit.xml"), "utf8");

    expect(schemaErrors(xml, JUNIT_SCHEMAS.jenkins)).toBe("");
    for (const suite of suitesOf(xml)) expect(schemaErrors(suite, JUNIT_SCHEMAS.surefire)).toBe("");
  });

  test("GitHub: the step outputs count tasks and trials, the job summary shows the trials", async () => {
    const outputs = Object.fromEntries(
      (await readFile(dir.path("output.txt"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    expect(outputs).toMatchObject({
      passed: "2",
      failed: "1",
      total: "3",
      trials: "9",
      passed_trials: "8",
      pass_at_1: "0.888889",
      flaky_tasks: "1",
    });
    const summary = await readFile(dir.path("summary.md"), "utf8");
    expect(summary).toMatch(/^\| fix-failing-test +\| +2\/3 \| +66\.7% \| yes +\|/m);
    expect(summary).toContain("|   3 | 100.0% |  66.7% |");
    expect(summary).toContain("<details><summary>fix-failing-test/trial-2: completed, 0 changed");
    // -j 1: each trial's lines stream into a group named after it.
    expect(run.stderr).toMatch(/^::group::fix-failing-test\/trial-2$/m);
  });
});
