import { readFileSync } from "node:fs";
import { symlink } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { COMMANDS, parseCommandLine, validateCommand } from "../../src/cli/main.js";
import { runCli } from "../helpers/run-cli.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const SPECS = Object.entries(COMMANDS);

const EXAMPLES = SPECS.flatMap(([name, spec]) =>
  spec.examples.map(([example]) => ({ name, example })),
);

/**
 * The examples that run offline, in an order where each finds what the ones before wrote, with
 * the exit code each must end with. The others need the API, or shard folders, and are parsed only.
 */
const RUNNABLE: readonly [example: string, exitCode: number][] = [
  ["$0 --offline 'tasks/*.yaml'", EXIT.ok],
  ["$0 plan 'tasks/*.yaml'", EXIT.ok],
  ["$0 plan 'tasks/*.yaml' --history agent-runs/report.json", EXIT.ok],
  ["$0 plan 'tasks/*.yaml' --budget-usd 5 --refuse-over-budget", EXIT.usage],
  ["$0 list 'tasks/*.yaml'", EXIT.ok],
  ["$0 list --json --shard 1/2 'tasks/*.yaml'", EXIT.ok],
  ["$0 --offline --max-steps 2 -o stopped tasks/fix-failing-test.yaml", EXIT.taskFailed],
  ["$0 --offline --trials 3 --retry-errors 2 -o trials tasks/fix-failing-test.yaml", EXIT.ok],
  ["$0 report agent-runs --junit junit.xml", EXIT.ok],
  ["$0 report --compare --allow-different stopped agent-runs", EXIT.ok],
  ["$0 export --swebench preds.jsonl agent-runs", EXIT.ok],
  ["$0 export --atif trajectories agent-runs", EXIT.ok],
  ["$0 view agent-runs -o view.html", EXIT.ok],
  ["$0 view --compare stopped agent-runs -o compare.html", EXIT.ok],
  ["$0 replay agent-runs/fix-failing-test/transcript.jsonl", EXIT.ok],
  ["$0 view agent-run-replays -o replays.html", EXIT.ok],
  ["$0 replay --strict -o replays agent-runs/add-farewell/transcript.jsonl", EXIT.ok],
  [
    "$0 replay --until-step 2 --continue --offline agent-runs/fix-failing-test/transcript.jsonl",
    EXIT.ok,
  ],
  [
    "$0 replay --task tasks/fix-failing-test.yaml agent-runs/fix-failing-test/transcript.jsonl",
    EXIT.ok,
  ],
  ["$0 resume stopped/fix-failing-test --offline --max-steps 12", EXIT.ok],
];

const PARSED_ONLY = [
  "$0 'tasks/*.yaml'",
  "$0 -j 2 --budget-usd 1 --shard 1/2 'tasks/*.yaml'",
  "$0 report 'shard-*' --json report.json",
  "$0 report --compare --fail-on-regression last-night agent-runs",
  "$0 export --swebench preds.jsonl --model-name my-agent 'shard-*'",
  "$0 resume stopped/fix-failing-test --timeout 20m --fresh-budget",
  // Needs an interrupted batch: test/cli/interrupted-batch.test.ts makes one and resumes it.
  "$0 resume agent-runs --offline",
];

/** An example's argv, as a POSIX shell splits it (the examples use single quotes only). */
function argvOf(example: string): string[] {
  const words = example.match(/'[^']*'|\S+/g) ?? [];
  return words.slice(1).map((word) => word.replace(/^'(.*)'$/, "$1"));
}

/** The codes README's "Exit codes" section names (`0`, `129`, …). */
function readmeExitCodes(): Set<number> {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.split(/^## Exit codes$/m)[1]?.split(/^## /m)[0] ?? "";
  return new Set([...section.matchAll(/`(\d+)`/g)].map((match) => Number(match[1])));
}

describe("every command's --help", () => {
  test.each(SPECS)("%s lists its examples and exit codes", async (name, spec) => {
    const run = await runCli([name, "--help"]);

    const flat = run.stdout.replace(/\s+/g, "");
    expect(run.exitCode).toBe(0);
    expect(spec.examples.length).toBeGreaterThan(0);
    for (const [example] of spec.examples)
      expect(flat).toContain(example.replace("$0", "agent-run").replace(/\s+/g, ""));
    expect(run.stdout).toMatch(/^Exit codes:$/m);
    for (const [codes] of spec.exitCodes)
      expect(run.stdout).toMatch(new RegExp(`^  ${codes.join("/")} `, "m"));
  });

  test("every example is either run below or parsed only", () => {
    const classified = [...RUNNABLE.map(([example]) => example), ...PARSED_ONLY].sort();

    expect(EXAMPLES.map(({ example }) => example).sort()).toEqual(classified);
  });

  test.each(EXAMPLES)("$example parses with the $name flag table", async ({ name, example }) => {
    const parsed = await parseCommandLine(argvOf(example), { writeOut: () => {} });

    expect(parsed?.command).toBe(name);
    expect(() => parsed && validateCommand(parsed, {})).not.toThrow();
  });

  test("the exit codes listed are README's exit-code table, and EXIT's", () => {
    const listed = new Set(SPECS.flatMap(([, spec]) => spec.exitCodes.flatMap(([codes]) => codes)));

    expect([...listed].sort()).toEqual([...readmeExitCodes()].sort());
    expect([...listed].sort()).toEqual(Object.values(EXIT).map(Number).sort());
  });
});

describe("the offline examples, run in a folder with the example tasks", () => {
  test("each ends with the exit code it should", async () => {
    await using ws = await tmpWorkspace();
    for (const folder of ["tasks", "fixtures"]) await symlink(resolve(folder), ws.path(folder));

    const codes: [string, number | null][] = [];
    for (const [example] of RUNNABLE) {
      const run = await spawnCli(argvOf(example), {}, { cwd: ws.root });
      codes.push([example, run.code]);
    }

    expect(codes).toEqual(RUNNABLE);
  }, 120_000);
});
