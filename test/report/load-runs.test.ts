import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { loadRunSummaries } from "../../src/report/load-runs.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { failedCheck, summaryBody, writeRun } from "../helpers/run-summaries.js";

let tmp: string;
let batch: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-report-"));
  batch = join(tmp, "batch");
  const run = await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", batch]);
  expect(run.exitCode).toBe(0);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The ConfigError `promise` rejects with (fails the test when it resolves or throws another). */
async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe("loadRunSummaries", () => {
  test("reads a batch folder's task runs, sorted by name, as summary.json recorded them", async () => {
    const runs = await loadRunSummaries([batch]);

    expect(runs.map((run) => run.name)).toEqual([
      "add-farewell",
      "fix-failing-test",
      "rename-function",
    ]);
    const written = JSON.parse(await readFile(join(batch, "add-farewell", "summary.json"), "utf8"));
    expect(runs[0]).toMatchObject({
      name: "add-farewell",
      taskFile: "tasks/add-farewell.yaml",
      status: "completed",
      passed: true,
      steps: written.steps,
      totalTokens: written.total_tokens,
      costUsd: written.cost_usd,
      changedFileCount: written.changed_files.length,
      folder: join(batch, "add-farewell"),
    });
  });

  test("accepts task folders and batch folders together, and a folder given twice counts once", async () => {
    const other = join(tmp, "other");
    await writeRun(other, "zeta");
    const runs = await loadRunSummaries([join(batch, "rename-function"), other, other]);

    expect(runs.map((run) => run.name)).toEqual(["rename-function", "zeta"]);
  });

  test("ignores a report.json beside the task folders and accepts unknown extra fields", async () => {
    const dir = join(tmp, "with-report");
    await writeRun(dir, "alpha", summaryBody("alpha", { origin: { kind: "replay" }, extra: 1 }));
    await writeFile(join(dir, "report.json"), "not even JSON");
    const runs = await loadRunSummaries([dir]);

    expect(runs.map((run) => run.name)).toEqual(["alpha"]);
  });

  test("a summary written before checks existed passes when it completed", async () => {
    const dir = join(tmp, "old");
    const { passed: _passed, checks: _checks, ...old } = summaryBody("old-ok");
    await writeRun(dir, "old-ok", old);
    await writeRun(dir, "old-limit", { ...old, name: "old-limit", status: "max_steps" });
    const runs = await loadRunSummaries([dir]);

    expect(runs.map((run) => [run.name, run.passed, run.checks])).toEqual([
      ["old-limit", false, []],
      ["old-ok", true, []],
    ]);
  });

  test("refuses a task name found in two folders, naming both", async () => {
    const first = join(tmp, "shard-1");
    const second = join(tmp, "shard-2");
    await writeRun(first, "twice");
    await writeRun(second, "twice");
    const error = await configError(loadRunSummaries([first, second]));

    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('task "twice" appears twice');
    expect(error.message).toContain(join(first, "twice"));
    expect(error.message).toContain(join(second, "twice"));
  });

  test("refuses a path that does not exist and a folder without runs", async () => {
    const empty = join(tmp, "empty");
    await mkdir(join(empty, "not-a-run"), { recursive: true });

    expect((await configError(loadRunSummaries([join(tmp, "nope")]))).message).toBe(
      `${join(tmp, "nope")}: no such file or folder`,
    );
    expect((await configError(loadRunSummaries([empty]))).message).toMatch(
      /empty: no runs in it \(no summary\.json in it, in its immediate sub-folders, or in their trial-<n> folders\)$/,
    );
  });

  test("names the file for invalid JSON, and the file and field for a mismatch", async () => {
    const broken = await writeRun(join(tmp, "broken"), "broken", '{"name": ');
    const bad = await writeRun(
      join(tmp, "bad"),
      "bad",
      summaryBody("bad", { usage: { input_tokens: "many" }, checks: [failedCheck("t", "m"), {}] }),
    );

    expect((await configError(loadRunSummaries([broken]))).message).toMatch(
      new RegExp(`^${join(broken, "summary.json")}: not valid JSON: `),
    );
    const message = (await configError(loadRunSummaries([bad]))).message;
    const file = join(bad, "summary.json");
    expect(message).toContain(`${file}: usage.input_tokens: Invalid input: expected number`);
    expect(message).toContain(`${file}: usage.output_tokens: required field is missing`);
    expect(message).toContain(`${file}: checks.1.name: required field is missing`);
  });

  test("refuses a summary.json newer than it understands", async () => {
    const future = await writeRun(
      join(tmp, "future"),
      "future",
      summaryBody("future", { schema_version: 2 }),
    );

    expect((await configError(loadRunSummaries([future]))).message).toBe(
      `${join(future, "summary.json")}: schema_version 2 is newer than this agent-run understands (1); upgrade agent-run`,
    );
  });

  test("counts a task folder whose transcript has no result line and no summary.json as interrupted", async () => {
    const dir = join(tmp, "interrupted");
    await writeRun(dir, "finished");
    const recorded = await readFile(join(batch, "add-farewell", "transcript.jsonl"), "utf8");
    await mkdir(join(dir, "add-farewell"));
    // Killed mid-write: the init line and the first reply, then half a line.
    const [init, reply] = recorded.split("\n");
    await writeFile(join(dir, "add-farewell", "transcript.jsonl"), `${init}\n${reply}\n{"ty`);
    const warnings: string[] = [];
    const runs = await loadRunSummaries([dir], { onWarning: (message) => warnings.push(message) });

    expect(warnings).toEqual([]);
    expect(runs.map((run) => [run.name, run.status, run.passed])).toEqual([
      ["add-farewell", "interrupted", false],
      ["finished", "completed", true],
    ]);
    expect(runs[0]).toMatchObject({
      taskFile: expect.stringMatching(/add-farewell\.yaml$/),
      costUsd: null,
      error: expect.stringMatching(/^the run did not finish: its transcript has no result line/),
    });
    // Given as a task folder too.
    const alone = await loadRunSummaries([join(dir, "add-farewell")]);
    expect(alone.map((run) => run.status)).toEqual(["interrupted"]);
    // Killed before the init line: an empty transcript, named by its folder.
    await mkdir(join(dir, "copying"));
    await writeFile(join(dir, "copying", "transcript.jsonl"), "");
    const withEmpty = await loadRunSummaries([dir]);
    expect(withEmpty.find((run) => run.name === "copying")).toMatchObject({
      status: "interrupted",
      passed: false,
      error: expect.stringMatching(/its transcript is empty/),
    });
  });

  test("warns about a task folder holding an unreadable transcript but no summary.json", async () => {
    const dir = join(tmp, "killed");
    await writeRun(dir, "finished");
    await mkdir(join(dir, "killed-task"));
    await writeFile(join(dir, "killed-task", "transcript.jsonl"), "{}\n");
    const warnings: string[] = [];
    const runs = await loadRunSummaries([dir], { onWarning: (message) => warnings.push(message) });

    expect(runs.map((run) => run.name)).toEqual(["finished"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      `${join(dir, "killed-task")}: a transcript but no summary.json, and the transcript cannot be read (`,
    );
    expect(warnings[0]).toMatch(/; left out of the report$/);
  });
});
