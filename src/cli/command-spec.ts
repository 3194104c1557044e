import type { Options, PositionalOptions } from "yargs";

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
  examples: readonly (readonly [string, string])[];
  epilogue: string;
};
