import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";

// Issue 16, section 5: an unknown flag gets a "did you mean", before yargs can read the next
// argument as its value (`--ofline x.yaml` used to say "Not enough non-option arguments").

describe("unknown flags", () => {
  test.each([
    [
      ["--ofline", "t.yaml"],
      "unknown flag --ofline (did you mean --offline?); 'agent-run run --help' lists the flags of run",
    ],
    [
      ["run", "t.yaml", "--budgetusd=3"],
      "unknown flag --budgetusd (did you mean --budget-usd?); 'agent-run run --help' lists the flags of run",
    ],
    [
      ["replay", "--max-step", "3", "t"],
      "unknown flag --max-step (did you mean --max-steps?); 'agent-run replay --help' lists the flags of replay",
    ],
    [
      ["report", "--jsn", "out"],
      "unknown flag --jsn (did you mean --json?); 'agent-run report --help' lists the flags of report",
    ],
    [
      ["--until-step", "3", "t.yaml"],
      "unknown flag --until-step (it is a flag of 'agent-run replay'); 'agent-run run --help' lists the flags of run",
    ],
    [["-x", "t.yaml"], "unknown flag -x; 'agent-run run --help' lists the flags of run"],
  ])("%j: exit 2 and the closest flag", async (argv, message) => {
    const run = await runCli(argv);

    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toBe(`agent-run: ${message}`);
  });

  test("aliases, camelCase spellings, --no- negations and flag values that look like flags pass", async () => {
    const run = await runCli([
      "-j",
      "2",
      "--maxSteps",
      "3",
      "--no-offline",
      "--bash-deny",
      "--force*",
      "--out=out",
      "--",
      "--not-a-flag.yaml",
    ]);

    expect(run.stderr).not.toMatch(/unknown flag/);
  });

  test.each([
    ["resme", "resume"],
    ["reprot", "report"],
    ["replya", "replay"],
  ])("a misspelt command %s: exit 2 and did you mean %s", async (word, command) => {
    const run = await runCli([word, "out"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim()).toBe(
      `agent-run: "${word}" is not a command or a task file (did you mean 'agent-run ${command}'?); 'agent-run --help' lists the commands`,
    );
  });
});
