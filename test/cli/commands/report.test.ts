import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import yargs from "yargs";
import { reportCommand } from "../../../src/cli/commands/report.js";
import { parseReportArgs, REPORT_COMMAND, type ReportArgs } from "../../../src/cli/report-flags.js";
import { ConfigError } from "../../../src/errors.js";
import { writeMixedShards } from "../../helpers/report-fixtures.js";
import { recordingIo } from "../../helpers/run-summaries.js";

let tmp: string;
let shards: [string, string];
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-report-cmd-"));
  shards = await writeMixedShards(tmp);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Parses argv the way main.ts does: a default run command beside `report`. */
async function parse(argv: string[]): Promise<{ command: string; args: ReportArgs }> {
  let command = "run";
  const raw = await yargs(argv)
    .command("$0 <tasks..>", "run")
    .command(
      REPORT_COMMAND.command,
      REPORT_COMMAND.describe,
      (y) =>
        y.positional("runs", REPORT_COMMAND.positionals?.runs ?? {}).options(REPORT_COMMAND.flags),
      () => {
        command = "report";
      },
    )
    .strict()
    .exitProcess(false)
    .fail((message) => {
      throw new ConfigError(message);
    })
    .parseAsync();
  return { command, args: parseReportArgs(raw) };
}

/** `report --compare BASE NEW`, without its flags. */
function compareArgs(base: string, next: string | undefined) {
  return {
    mode: "compare" as const,
    base,
    next: next ?? "",
    jsonFile: undefined,
    isDifferentAllowed: false,
    isRegressionFailed: false,
    regressionTasks: [],
  };
}

describe("agent-run report", () => {
  test("yargs picks it over the default run command and reads its flags", async () => {
    expect(await parse(["report", "a", "b/*", "--json", "r.json", "--junit", "j.xml"])).toEqual({
      command: "report",
      args: {
        mode: "report",
        patterns: ["a", "b/*"],
        jsonFile: "r.json",
        junitFile: "j.xml",
        hasJunitFileLine: false,
      },
    });
    expect(await parse(["report", "--compare", "old", "new"])).toEqual({
      command: "report",
      args: compareArgs("old", "new"),
    });
    const flags = [
      "--json",
      "c.json",
      "--fail-on-regression",
      "--allow-different",
      "--regression-task",
      "a,b",
      "--regression-task",
      "c",
    ];
    expect(await parse(["report", "--compare", "old", "new", ...flags])).toEqual({
      command: "report",
      args: {
        ...compareArgs("old", "new"),
        jsonFile: "c.json",
        isDifferentAllowed: true,
        isRegressionFailed: true,
        regressionTasks: ["a", "b", "c"],
      },
    });
  });

  test("refuses no folders, --compare without two reports or with --junit, and its flags without it", async () => {
    await expect(parse(["report"])).rejects.toThrow(/no run folders given/);
    await expect(parse(["report", "--compare", "old"])).rejects.toThrow(
      "--compare takes two reports, BASE and NEW, got 1",
    );
    await expect(parse(["report", "--compare", "a", "b", "--junit", "x"])).rejects.toThrow(
      "--junit writes a report, not a comparison; drop it with --compare",
    );
    await expect(parse(["report", "a", "--fail-on-regression"])).rejects.toThrow(
      "--fail-on-regression goes with --compare",
    );
    await expect(parse(["report", "a", "--allow-different"])).rejects.toThrow(
      "--allow-different goes with --compare",
    );
    await expect(
      parse(["report", "--compare", "a", "b", "--regression-task", "x"]),
    ).rejects.toThrow("--regression-task names tasks for --fail-on-regression; give it too");
  });

  test("exits 0 with failed tasks, prints the table and writes --json and --junit", async () => {
    const io = recordingIo();
    const jsonFile = join(tmp, "out", "report.json");
    const junitFile = join(tmp, "out", "junit.xml");
    const code = await reportCommand(
      {
        mode: "report",
        patterns: [join(tmp, "shard-*")],
        jsonFile,
        junitFile,
        hasJunitFileLine: false,
      },
      io,
    );

    expect(code).toBe(0);
    expect(io.out.join("\n")).toContain("1/3 passed (33.3%), 7,000 tokens, $0.0334");
    expect(JSON.parse(await readFile(jsonFile, "utf8")).totals).toMatchObject({
      tasks: 3,
      passed: 1,
    });
    expect(XMLValidator.validate(await readFile(junitFile, "utf8"))).toBe(true);
  });

  test("a glob that matches no folder is a ConfigError (exit 2)", async () => {
    const pattern = join(tmp, "nothing-*");
    const run = reportCommand(
      {
        mode: "report",
        patterns: [pattern],
        jsonFile: undefined,
        junitFile: undefined,
        hasJunitFileLine: false,
      },
      recordingIo(),
    );

    await expect(run).rejects.toThrow(
      `${pattern}: matched no run folders; check the path and the quotes`,
    );
    await expect(run).rejects.toHaveProperty("exitCode", 2);
  });

  test("--compare reads a report.json on one side and run folders on the other", async () => {
    const jsonFile = join(tmp, "base.json");
    await reportCommand(
      {
        mode: "report",
        patterns: [shards[0]],
        jsonFile,
        junitFile: undefined,
        hasJunitFileLine: false,
      },
      recordingIo(),
    );
    const io = recordingIo();
    const different = compareArgs(jsonFile, join(tmp, "shard-2"));
    // Other tasks on each side: not comparable, unless asked.
    await expect(reportCommand(different, recordingIo())).rejects.toThrow(
      /task set: only in BASE; 2 tasks alpha, gamma\n.*task set: only in NEW; task beta/s,
    );
    const code = await reportCommand({ ...different, isDifferentAllowed: true }, io);

    expect(code).toBe(0);
    expect(io.out.join("\n")).toMatch(
      /^1\/2 → 0\/1 tasks passed every trial \(2 → 1 trials\)\n\nDifferences between the batches \(2\):\n/,
    );
    expect(io.out.join("\n")).toContain(
      "\nNew tasks (1):\n- beta\n\nMissing tasks (2):\n- alpha\n- gamma\n",
    );
  });

  test("--compare reads a version 1 report.json (before trials) as tasks run once", async () => {
    const run = (name: string, passed: boolean) => ({
      name,
      task_file: `tasks/${name}.yaml`,
      model: "claude-sonnet-5-5",
      status: passed ? "completed" : "max_steps",
      passed,
      error: passed ? null : "max_steps reached (2 of 2 steps)",
      steps: 2,
      usage: {
        input_tokens: 100,
        output_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      total_tokens: 110,
      cost_usd: 0.01,
      duration_ms: 50,
      changed_file_count: 1,
      check_count: 0,
      failed_checks: [],
    });
    const file = join(tmp, "v1.json");
    await writeFile(
      file,
      JSON.stringify({ schema_version: 1, tasks: [run("alpha", true), run("gamma", false)] }),
    );
    const io = recordingIo();
    // It holds no fingerprint: the comparison cannot tell whether the limits were the same.
    await expect(reportCommand(compareArgs(file, shards[0]), recordingIo())).rejects.toThrow(
      "fingerprint: no fingerprint recorded in BASE and NEW; 2 tasks alpha, gamma",
    );
    const code = await reportCommand(
      { ...compareArgs(file, shards[0]), isDifferentAllowed: true },
      io,
    );

    expect(code).toBe(0);
    expect(io.out.join("\n")).toMatch(/^1\/2 → 1\/2 tasks passed every trial \(2 → 2 trials\)\n/);
    expect(io.out.join("\n")).toMatch(/^\| alpha +\| unchanged +\| 1\/1 +\|/m);
  });

  test.each([
    [{ name: "a", task_file: "a.yaml", runs: [] }, "tasks.0.runs: Too small"],
    [{ name: "../a", task_file: "a.yaml", runs: [] }, 'tasks.0.name: "../a" is not a task name'],
  ])("a hostile version 2 report.json is refused, naming the field", async (task, message) => {
    const file = join(tmp, "hostile.json");
    await writeFile(file, JSON.stringify({ schema_version: 2, tasks: [task] }));
    const run = reportCommand(compareArgs(file, shards[0]), recordingIo());

    await expect(run).rejects.toThrow(`${file}: ${message}`);
  });

  test("--compare refuses a report.json newer than it understands", async () => {
    const file = join(tmp, "future.json");
    await writeFile(file, JSON.stringify({ schema_version: 9, tasks: [] }));
    const run = reportCommand(compareArgs(file, shards[0]), recordingIo());

    await expect(run).rejects.toThrow(
      `${file}: schema_version 9 is newer than this agent-run understands (2); upgrade agent-run`,
    );
  });
});
