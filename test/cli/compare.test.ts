import { readFile, writeFile } from "node:fs/promises";
import { beforeAll, describe, expect, test } from "vitest";
import type { ApiMessage } from "../../src/model/model-client.js";
import { loadReplies } from "../../src/task/load-replies.js";
import { launchBrowser, openViewer, shouldRunBrowserTests } from "../helpers/browser.js";
import { strictAjv } from "../helpers/json-schema-validator.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { reply } from "../helpers/replies.js";
import { CLAUDE_EXAMPLES, type CliRun, runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 18, section 2, "done when": `report --compare` of batches of three trials refuses a batch
// with other limits, and with --fail-on-regression passes on noise but fails on a real drop.

/** Which trials of which task give up at once (the run completes; its checks fail). */
type GiveUps = Record<string, readonly number[]>;

const TASKS = ["add-farewell", "fix-failing-test", "rename-function"];

/** Runs the three Claude examples, `trials` each, against a model server scripted by `giveUps`. */
async function batch(out: string, trials: number, giveUps: GiveUps): Promise<CliRun> {
  await using server = await startMockHttpServer();
  const replies = new Map<string, ApiMessage[]>();
  for (const name of TASKS) replies.set(name, await loadReplies(`fixtures/replies/${name}.yaml`));
  // -j 1: the trials ask in order, task by task, so the queue is theirs in that order.
  for (const name of TASKS) {
    for (let trial = 1; trial <= trials; trial += 1) {
      if (giveUps[name]?.includes(trial)) {
        server.queue(reply().text("I could not find the bug.").usage(1000, 20));
      } else {
        server.queue(...(replies.get(name) ?? []));
      }
    }
  }
  const run = await runCli(
    ["--trials", String(trials), "-j", "1", ...CLAUDE_EXAMPLES, "--out", out],
    { env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url } },
  );
  expect(server.remaining(), run.stderr).toBe(0);
  return run;
}

describe("report --compare of batches of trials", () => {
  let dir: TmpWorkspace;

  beforeAll(async () => {
    dir = await tmpWorkspace();
    // Last night: fix-failing-test's second trial gave up.
    await batch(dir.path("base"), 3, { "fix-failing-test": [2] });
    // Tonight, unchanged: another task's trial gives up instead.
    await batch(dir.path("noise"), 3, { "rename-function": [3] });
    // Broken: every trial of every task gives up.
    await batch(dir.path("broken"), 3, {
      "add-farewell": [1, 2, 3],
      "fix-failing-test": [1, 2, 3],
      "rename-function": [1, 2, 3],
    });
    // One task broken, five trials: enough for its drop alone to be significant.
    await batch(dir.path("one-broken"), 5, { "add-farewell": [1, 2, 3, 4, 5] });
    // The same tasks at other limits: offline, stopped after 3 steps.
    await runCli([
      "--offline",
      "--trials",
      "3",
      "--max-steps",
      "3",
      ...CLAUDE_EXAMPLES,
      "--out",
      dir.path("capped"),
    ]);
    return () => dir[Symbol.asyncDispose]();
  });

  const compare = (next: string, ...flags: string[]) =>
    runCli(["report", "--compare", dir.path("base"), dir.path(next), ...flags]);

  test("noise passes --fail-on-regression: the flaky tasks are flaky, not flipped", async () => {
    const run = await compare("noise", "--fail-on-regression");

    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/^2\/3 → 2\/3 tasks passed every trial \(9 → 9 trials\)\n/);
    expect(run.stdout).toContain(
      "Fingerprints: the same tasks, task files, models, limits, prices, tool protocol and agent-run version.",
    );
    expect(run.stdout).toContain(
      "Tasks: 0 regressed, 0 improved, 2 flaky, 0 pass → fail, 0 fail → pass, 1 unchanged; 0 new, 0 missing",
    );
    expect(run.stdout).toContain(
      "Flaky (trials disagree; any change is within noise) (2):\n- fix-failing-test: 2/3 → 3/3 passed (p = 1.000)\n- rename-function: 3/3 → 2/3 passed (p = 0.500)",
    );
    expect(run.stdout.split("\n").at(-1)).toBe(
      "No regression: the mean pass rate's interval reaches zero or above.",
    );
  });

  test("a real drop fails --fail-on-regression: the whole interval below zero", async () => {
    const run = await compare("broken", "--fail-on-regression");

    expect([run.exitCode, run.stderr]).toEqual([1, ""]);
    expect(run.stdout).toMatch(
      /Mean pass rate 88\.9% → 0\.0%: -88\.9 points, 95% interval \[-100\.0, -\d+\.\d\]/,
    );
    expect(run.stdout.split("\n").at(-1)).toBe(
      "Regression: the mean pass rate fell, and its 95% interval lies wholly below zero.",
    );
    // Without the flag the comparison is the same, and exits 0.
    expect((await compare("broken")).exitCode).toBe(0);
  });

  test("one task's drop over five trials is significant on its own; named, it fails the gate", async () => {
    const unnamed = await compare("one-broken", "--fail-on-regression");
    const run = await compare(
      "one-broken",
      "--fail-on-regression",
      "--regression-task",
      "add-farewell,fix-failing-test",
    );

    // The interval reaches zero: rename-function and fix-failing-test did no worse.
    expect(unnamed.exitCode).toBe(0);
    expect(unnamed.stdout.split("\n").at(-1)).toBe(
      "No regression: the mean pass rate's interval reaches zero or above (1 task regressed, none named with --regression-task).",
    );
    expect(run.exitCode).toBe(1);
    // 3/3 → 0/5: Fisher's one-sided p = C(3,3)·C(5,0)/C(8,3) = 1/56.
    expect(run.stdout).toContain(
      "Regressed (significant: Fisher's exact test, one-sided, p < 0.05) (1):\n- add-farewell: 3/3 → 0/5 passed (p = 0.018)",
    );
    expect(run.stdout.split("\n").at(-1)).toBe("Regression: add-farewell regressed (p = 0.018).");
    const typo = await compare(
      "one-broken",
      "--fail-on-regression",
      "--regression-task",
      "add-farwell",
    );
    expect([typo.exitCode, typo.stdout]).toEqual([2, ""]);
    expect(typo.stderr).toBe(
      "agent-run: --regression-task add-farwell: not a task of both batches (3 tasks add-farewell, fix-failing-test, rename-function); name a task both ran",
    );
  });

  test.runIf(shouldRunBrowserTests())(
    "view --compare says what the gate would: no batch regression, but the task that regressed",
    async () => {
      const file = dir.path("compare.html");
      const view = await runCli([
        "view",
        "--compare",
        dir.path("base"),
        dir.path("one-broken"),
        "-o",
        file,
      ]);
      expect(view.exitCode, view.stderr).toBe(0);
      await using browser = await launchBrowser();
      const { page, errors } = await openViewer(browser, file);

      await expect(page.locator("p.verdict").textContent()).resolves.toBe(
        "no batch regression the mean pass rate's interval reaches zero or above, but 1 task regressed significantly (add-farewell); none named with --regression-task",
      );
      expect(errors).toEqual([]);
    },
  );

  test("a batch run at other limits is refused (exit 2, nothing written), unless --allow-different", async () => {
    const refused = await compare("capped", "--fail-on-regression", "--json", dir.path("c.json"));

    expect([refused.exitCode, refused.stdout]).toEqual([2, ""]);
    expect(refused.stderr).toBe(
      [
        `agent-run: cannot compare ${dir.path("base")} with ${dir.path("capped")}: their pass rates would not be comparable:`,
        "  limits: max_steps 10 → 3; task add-farewell",
        "  limits: max_steps 12 → 3; task fix-failing-test",
        "  limits: max_steps 8 → 3; task rename-function",
        "run both batches with the same tasks, limits and prices, or pass --allow-different to compare them anyway",
      ].join("\n"),
    );
    await expect(readFile(dir.path("c.json"))).rejects.toThrow(/ENOENT/);

    const allowed = await compare("capped", "--allow-different");
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stdout).toContain(
      "- limits: max_steps 10 → 3 (refused without --allow-different); task add-farewell",
    );
  });

  test("--json writes the comparison, valid against schema/comparison.schema.json", async () => {
    const run = await compare(
      "one-broken",
      "--json",
      dir.path("one.json"),
      "--fail-on-regression",
      "--regression-task",
      "add-farewell",
    );
    const json = JSON.parse(await readFile(dir.path("one.json"), "utf8"));
    const schema = JSON.parse(await readFile("schema/comparison.schema.json", "utf8"));
    const validate = strictAjv().compile(schema);

    expect(run.exitCode).toBe(1);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    expect(json.regression).toEqual({
      is_regression: true,
      reasons: ["add-farewell regressed (p = 0.018)"],
      regressed_tasks: ["add-farewell"],
    });
    expect(json.tasks[0]).toMatchObject({
      name: "add-farewell",
      verdict: "regressed",
      p_drop: 0.017857,
      base: { trials: 3, passed_trials: 3, flaky: false },
      new: { trials: 5, passed_trials: 0, flaky: false },
    });
  });

  test("report.json holds each task's fingerprint; compared as files, the batches compare the same", async () => {
    const report = JSON.parse(await readFile(dir.path("base/report.json"), "utf8"));
    const task = await readFile("tasks/add-farewell.yaml", "utf8");
    const { createHash } = await import("node:crypto");

    expect(report.tasks[0].fingerprint).toEqual({
      task_sha256: createHash("sha256").update(task).digest("hex"),
      limits: expect.objectContaining({ max_steps: 10, max_cost_usd: null }),
      price: { input: 2, output: 10, cache_write: 2.5, cache_read: 0.2 },
      tool_protocol: "native",
      agent_run_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      model: "claude-sonnet-5-5",
      mixed: [],
    });
    const fromFolders = await compare("noise");
    const fromFiles = await runCli([
      "report",
      "--compare",
      dir.path("base/report.json"),
      dir.path("noise/report.json"),
    ]);
    expect(fromFiles.stdout).toBe(fromFolders.stdout);
  });

  test("a task file edited between the batches is listed, not refused; a model repriced is refused", async () => {
    const report = JSON.parse(await readFile(dir.path("noise/report.json"), "utf8"));
    report.tasks[0].fingerprint.task_sha256 = "0".repeat(64);
    report.tasks[1].fingerprint.price.output = 12;
    await writeFile(dir.path("edited.json"), JSON.stringify(report));

    const run = await runCli(["report", "--compare", dir.path("base"), dir.path("edited.json")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("  price: output $10/MTok → $12/MTok; task fix-failing-test\n");
    expect(run.stderr).not.toContain("task file");
    const allowed = await runCli([
      "report",
      "--compare",
      dir.path("base"),
      dir.path("edited.json"),
      "--allow-different",
    ]);
    expect(allowed.stdout).toMatch(
      /\n- task file \(SHA-256\): [0-9a-f]{12} → 000000000000; task add-farewell\n/,
    );
  });

  test("a hostile fingerprint in a report.json is refused, naming the field", async () => {
    const report = JSON.parse(await readFile(dir.path("noise/report.json"), "utf8"));
    report.tasks[0].fingerprint.task_sha256 = "../../etc/passwd";
    await writeFile(dir.path("hostile.json"), JSON.stringify(report));

    const run = await runCli(["report", "--compare", dir.path("base"), dir.path("hostile.json")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${dir.path("hostile.json")}: tasks.0.fingerprint.task_sha256:`);
  });
});
