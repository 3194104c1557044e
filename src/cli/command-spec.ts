import type { Options, PositionalOptions } from "yargs";
import { describeExitCodes, type ExitCodeRow } from "./exit-codes.js";

/**
 * One command as `main.ts` registers it with yargs: every command has one of these, beside the
 * function that checks its raw values (`parseRunOptions`, `parseReplayArgs`, …).
 */
export type CommandSpec = {
  /** yargs' command string, with its positionals (`report [runs..]`); the first is its name. */
  command: string | readonly string[];
  describe: string;
  positionals?: Readonly<Record<string, PositionalOptions>>;
  flags: Readonly<Record<string, Options>>;
  /** `$0 …` command lines and what they do; a test parses each, and runs the offline ones. */
  examples: readonly (readonly [string, string])[];
  /** What `--help` lists under "Exit codes:"; README's exit-code table covers them all. */
  exitCodes: readonly ExitCodeRow[];
};

/**
 * The end of a command's `--help`: its examples, each command line on a line of its own with what
 * it does under it (yargs' two-column examples wrap long paths into the descriptions), then its
 * exit codes.
 */
export function helpEpilogue(spec: CommandSpec): string {
  const examples = spec.examples.map(
    ([example, meaning]) => `  ${example.replace("$0", "agent-run")}\n      ${meaning}`,
  );
  return ["Examples:", ...examples, "", describeExitCodes(spec.exitCodes)].join("\n");
}
