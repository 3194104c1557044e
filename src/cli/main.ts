import yargs, { type Argv } from "yargs";
import { AgentRunError, ConfigError, TaskFileError } from "../errors.js";
import { createRedactor, secretValues } from "../redact.js";
import { annotationRoot, taskFileAnnotations } from "../report/github-actions.js";
import { AGENT_RUN_VERSION } from "../version.js";
import { type CommandSpec, helpEpilogue } from "./command-spec.js";
import { EXIT } from "./exit-codes.js";
import { EXPORT_COMMAND, type ExportArgs, parseExportArgs } from "./export-flags.js";
import { listFlag } from "./flag-values.js";
import { type CliIo, processIo, withRedaction } from "./io.js";
import {
  LIST_COMMAND,
  type ListArgs,
  PLAN_COMMAND,
  parseListArgs,
  parsePlanOptions,
} from "./plan-flags.js";
import {
  parseReplayArgs,
  parseResumeArgs,
  REPLAY_COMMAND,
  RESUME_COMMAND,
  type ReplayArgs,
  type ResumeArgs,
} from "./replay-flags.js";
import { parseReportArgs, REPORT_COMMAND, type ReportArgs } from "./report-flags.js";
import { parseRunOptions, RUN_COMMAND, type RunOptions } from "./run-flags.js";
import { refuseMisspeltCommand, refuseUnknownFlags } from "./unknown-flags.js";
import { parseViewArgs, VIEW_COMMAND, type ViewArgs } from "./view-flags.js";

/** Every command, by the name `main` dispatches on. */
export const COMMANDS = {
  run: RUN_COMMAND,
  replay: REPLAY_COMMAND,
  resume: RESUME_COMMAND,
  report: REPORT_COMMAND,
  plan: PLAN_COMMAND,
  list: LIST_COMMAND,
  export: EXPORT_COMMAND,
  view: VIEW_COMMAND,
} as const satisfies Record<string, CommandSpec>;

type CommandName = keyof typeof COMMANDS;

type ParsedCommand = { command: CommandName; args: Record<string, unknown> };

/** A command line whose values its command's parse function accepted. */
export type ValidCommand =
  | { command: "run"; options: RunOptions }
  | { command: "replay"; options: ReplayArgs }
  | { command: "resume"; options: ResumeArgs }
  | { command: "report"; options: ReportArgs }
  | { command: "plan"; options: RunOptions }
  | { command: "list"; options: ListArgs }
  | { command: "export"; options: ExportArgs }
  | { command: "view"; options: ViewArgs };

/** The exit code for a batch: 0 only when every task passed (completed, and its checks passed). */
export function exitCodeFor(summaries: readonly { passed: boolean }[]): number {
  return summaries.every((summary) => summary.passed) ? EXIT.ok : EXIT.taskFailed;
}

/** Checks the values yargs parsed with the command's own rules; throws `ConfigError`s. */
export function validateCommand(
  parsed: ParsedCommand,
  env: Readonly<Record<string, string | undefined>>,
): ValidCommand {
  const { args } = parsed;
  switch (parsed.command) {
    case "replay":
      return { command: "replay", options: parseReplayArgs(args, env) };
    case "resume":
      return { command: "resume", options: parseResumeArgs(args, env) };
    case "report":
      return { command: "report", options: parseReportArgs(args) };
    case "export":
      return { command: "export", options: parseExportArgs(args, env) };
    case "view":
      return { command: "view", options: parseViewArgs(args) };
    case "run":
      return { command: "run", options: parseRunOptions(args, env) };
    case "plan":
      return { command: "plan", options: parsePlanOptions(args, env) };
    case "list":
      return { command: "list", options: parseListArgs(args, env) };
    default:
      return assertNever(parsed.command);
  }
}

/** Runs a validated command; each command's code loads only when it runs. */
async function runValidCommand(
  valid: ValidCommand,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  switch (valid.command) {
    case "replay":
      return (await import("./commands/replay.js")).replayCommand(valid.options, io, signal);
    case "resume":
      return (await import("./commands/resume.js")).resumeCommand(valid.options, io, signal);
    case "report":
      return (await import("./commands/report.js")).reportCommand(valid.options, io);
    case "plan":
      return (await import("./commands/plan.js")).planCommand(valid.options, io);
    case "list":
      return (await import("./commands/list.js")).listCommand(valid.options, io);
    case "export":
      return (await import("./commands/export.js")).exportCommand(valid.options, io);
    case "view":
      return (await import("./commands/view.js")).viewCommand(valid.options, io);
    case "run": {
      if (valid.options.isDryRun) {
        return (await import("./commands/plan.js")).planCommand(valid.options, io);
      }
      const { runCommand } = await import("./commands/run.js");
      return exitCodeFor((await runCommand(valid.options, io, signal)).summaries);
    }
    default:
      return assertNever(valid);
  }
}

function assertNever(value: never): never {
  throw new Error(`unknown command ${String(value)}`);
}

export type MainOptions = {
  io?: CliIo;
  /** Install SIGINT/SIGTERM/SIGHUP handlers that cancel the batch (the real binary does; tests may not). */
  handleSignals?: boolean;
  /** Cancels the batch as Ctrl-C would (for tests and embedding). */
  signal?: AbortSignal;
};

/** The exit code of each signal the binary handles: 128 + its number. */
const SIGNAL_EXIT = { SIGHUP: EXIT.sighup, SIGINT: EXIT.sigint, SIGTERM: EXIT.sigterm } as const;

type HandledSignal = keyof typeof SIGNAL_EXIT;

/** argv → command → exit code. The only place that catches `AgentRunError`s. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const io = options.io ?? processIo();
  const controller = new AbortController();
  let signalExit: number | undefined;
  if (options.signal?.aborted === true) controller.abort("cancelled");
  options.signal?.addEventListener("abort", () => controller.abort("cancelled"), { once: true });
  const onSignal = (name: HandledSignal) => () => {
    if (signalExit !== undefined) {
      io.writeErr(`agent-run: ${name} again; exiting now`);
      process.exit(SIGNAL_EXIT[name]);
    }
    signalExit = SIGNAL_EXIT[name];
    io.writeErr(`agent-run: ${name} received; cancelling every task (again to exit at once)`);
    controller.abort("cancelled");
  };
  const handlers = Object.fromEntries(
    Object.keys(SIGNAL_EXIT).map((name) => [name, onSignal(name as HandledSignal)]),
  );
  if (options.handleSignals === true) {
    for (const [name, handler] of Object.entries(handlers)) process.on(name, handler);
  }
  // Until the secrets are known, error messages are only kept from starting workflow commands.
  let guarded = withRedaction(io, (text) => text);
  try {
    const parsed = await parseCommandLine(argv, io);
    if (parsed === undefined) return EXIT.ok;
    const secrets = secretValues(io.env, [
      ...listFlag(parsed.args.redact),
      ...listFlag(io.env.AGENT_RUN_REDACT),
    ]);
    guarded = withRedaction(io, createRedactor(secrets));
    const code = await runValidCommand(validateCommand(parsed, io.env), guarded, controller.signal);
    return signalExit ?? code;
  } catch (error) {
    // A signal outranks what it interrupted: a script that pressed Ctrl-C is told 130, not 2.
    const code = reportFailure(error, guarded);
    return signalExit ?? code;
  } finally {
    if (options.handleSignals === true) {
      for (const [name, handler] of Object.entries(handlers)) process.off(name, handler);
    }
  }
}

/** The message and exit code of anything that ended the command early. */
function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof TaskFileError) {
    const count = error.problems.length;
    io.writeErr(
      `agent-run: ${count} ${count === 1 ? "problem" : "problems"} in the task files; nothing was run`,
    );
    io.writeErr(error.message);
    if (io.env.GITHUB_ACTIONS === "true") {
      for (const line of taskFileAnnotations(error.problems, annotationRoot(io.env)))
        (io.writeCommand ?? io.writeErr)(line);
    }
    return error.exitCode;
  }
  if (error instanceof AgentRunError) {
    io.writeErr(`agent-run: ${error.message}`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.writeErr(`agent-run: internal error (please report it): ${detail}`);
  return EXIT.internal;
}

/** Parses argv with yargs and the commands' flag tables; undefined when it only printed help or the version. */
export async function parseCommandLine(
  argv: readonly string[],
  io: Pick<CliIo, "writeOut">,
): Promise<ParsedCommand | undefined> {
  const tables = Object.entries(COMMANDS).map(([name, spec]) => ({ name, flags: spec.flags }));
  refuseMisspeltCommand(argv, Object.keys(COMMANDS));
  refuseUnknownFlags(argv, tables, { name: "run", flags: COMMANDS.run.flags });
  let output = "";
  let command: CommandName = "run";
  let parser = yargs([...argv])
    .scriptName("agent-run")
    .usage(
      "$0 [run] <task files or globs...> [options]\n\nRun coding-agent tasks described in YAML files.",
    );
  for (const [name, spec] of Object.entries(COMMANDS)) {
    parser = parser.command(
      [...[spec.command].flat()],
      spec.describe,
      (y) => describeCommand(y, spec),
      () => {
        command = name as CommandName;
      },
    );
  }
  // The default command's own builder adds its examples and exit codes to the top-level help.
  parser = parser
    .epilogue("Docs: README.md, docs/transcript.md, docs/ci.md, docs/kubernetes.md\n")
    .version(AGENT_RUN_VERSION)
    .help()
    .alias("h", "help")
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, error) => {
      if (message?.startsWith("Not enough non-option arguments")) missingArguments(argv);
      throw new ConfigError(
        `${message ?? error?.message ?? "invalid usage"}\nRun 'agent-run --help' for usage.`,
      );
    });
  const result = await parser.parseAsync([...argv], {}, (_error, _argv, text) => {
    output = text;
  });
  if (output !== "") {
    io.writeOut(output);
    return undefined;
  }
  return { command, args: result };
}

/** What each command's required positional holds, in words. */
const ARGUMENT_WORDS: Readonly<Record<string, string>> = {
  tasks: "task files",
  transcripts: "transcripts",
  runs: "run folders",
};

/** Throws for a command given none of what it works on: `no task files given; usage: …`. */
function missingArguments(argv: readonly string[]): never {
  const named = argv.find((arg) => Object.hasOwn(COMMANDS, arg)) as CommandName | undefined;
  const usage = [COMMANDS[named ?? "run"].command].flat()[0] ?? "";
  const positional = /<(\w+)\.\.>/.exec(usage)?.[1] ?? "";
  const words = ARGUMENT_WORDS[positional] ?? positional;
  const command = named === undefined ? "agent-run" : `agent-run ${named}`;
  throw new ConfigError(
    `no ${words} given; usage: ${command} <${words} or globs...>\nRun '${command} --help' for its options and examples.`,
  );
}

/** One command's positionals, flags, examples and exit codes, for its `--help`. */
function describeCommand(y: Argv, spec: CommandSpec): Argv {
  let built = y;
  for (const [name, positional] of Object.entries(spec.positionals ?? {})) {
    built = built.positional(name, positional);
  }
  return built.options(spec.flags).epilogue(helpEpilogue(spec));
}
