import yargs from "yargs";
import { AgentRunError, ConfigError, TaskFileError } from "../errors.js";
import { createRedactor, secretValues } from "../redact.js";
import { AGENT_RUN_VERSION } from "../version.js";
import { type CliIo, processIo, withRedaction } from "./io.js";
import { parseRunOptions, RUN_FLAGS } from "./options.js";
import { REPLAY_FLAGS, RESUME_FLAGS } from "./replay-flags.js";
import { parseReportArgs, reportCommandModule } from "./report-flags.js";

/** Exit codes, in one place; README's table mirrors it. */
export const EXIT = {
  ok: 0,
  taskFailed: 1,
  usage: 2,
  internal: 3,
  sigint: 130,
  sigterm: 143,
} as const;

/** The exit code for a batch: 0 only when every task passed (completed, and its checks passed). */
export function exitCodeFor(summaries: readonly { passed: boolean }[]): number {
  return summaries.every((summary) => summary.passed) ? EXIT.ok : EXIT.taskFailed;
}

/** Runs the command yargs picked; `run` is the default. */
async function runParsedCommand(
  parsed: ParsedCommand,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  switch (parsed.command) {
    // Each command's code loads when it runs, so starting one costs nothing for the others.
    case "replay":
      return (await import("./replay-command.js")).replayCommand(parsed.args, io, signal);
    case "resume":
      return (await import("./replay-command.js")).resumeCommand(parsed.args, io, signal);
    case "report":
      return (await import("./report-command.js")).reportCommand(parseReportArgs(parsed.args), io);
    case "run": {
      const { runCommand } = await import("./run-command.js");
      const batch = await runCommand(parseRunOptions(parsed.args, io.env), io, signal);
      return exitCodeFor(batch.summaries);
    }
    default:
      return assertNever(parsed.command);
  }
}

/** A repeatable string flag's values (`--redact A --redact B,C`). */
function listFlag(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.flatMap((item) => String(item).split(","));
}

function assertNever(value: never): never {
  throw new Error(`unknown command ${String(value)}`);
}

type ParsedCommand = {
  command: "run" | "replay" | "resume" | "report";
  args: Record<string, unknown>;
};

export type MainOptions = {
  io?: CliIo;
  /** Install SIGINT/SIGTERM handlers that cancel the batch (the real binary does; tests may not). */
  handleSignals?: boolean;
  /** Cancels the batch as Ctrl-C would (for tests and embedding). */
  signal?: AbortSignal;
};

/** argv → command → exit code. The only place that catches `AgentRunError`s. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const io = options.io ?? processIo();
  const controller = new AbortController();
  let signalExit: number | undefined;
  if (options.signal?.aborted === true) controller.abort("cancelled");
  options.signal?.addEventListener("abort", () => controller.abort("cancelled"), { once: true });
  const onSignal = (name: "SIGINT" | "SIGTERM") => () => {
    if (signalExit !== undefined) {
      io.writeErr(`agent-run: ${name} again; exiting now`);
      process.exit(name === "SIGINT" ? EXIT.sigint : EXIT.sigterm);
    }
    signalExit = name === "SIGINT" ? EXIT.sigint : EXIT.sigterm;
    io.writeErr(`agent-run: ${name} received; cancelling every task (again to exit at once)`);
    controller.abort("cancelled");
  };
  const handlers = { SIGINT: onSignal("SIGINT"), SIGTERM: onSignal("SIGTERM") };
  if (options.handleSignals === true) {
    process.on("SIGINT", handlers.SIGINT);
    process.on("SIGTERM", handlers.SIGTERM);
  }
  try {
    const parsed = await parseArgv(argv, io);
    if (parsed === undefined) return EXIT.ok;
    const secrets = secretValues(io.env, [
      ...listFlag(parsed.args.redact),
      ...(io.env.AGENT_RUN_REDACT ?? "").split(","),
    ]);
    const code = await runParsedCommand(
      parsed,
      withRedaction(io, createRedactor(secrets)),
      controller.signal,
    );
    return signalExit ?? code;
  } catch (error) {
    if (error instanceof TaskFileError) {
      const count = error.problems.length;
      io.writeErr(
        `agent-run: ${count} ${count === 1 ? "problem" : "problems"} in the task files; nothing was run`,
      );
      io.writeErr(error.message);
      return error.exitCode;
    }
    if (error instanceof AgentRunError) {
      io.writeErr(`agent-run: ${error.message}`);
      return error.exitCode;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.writeErr(`agent-run: internal error (please report it): ${detail}`);
    return EXIT.internal;
  } finally {
    if (options.handleSignals === true) {
      process.off("SIGINT", handlers.SIGINT);
      process.off("SIGTERM", handlers.SIGTERM);
    }
  }
}

/** Parses argv with yargs; undefined when it only printed help or the version. */
async function parseArgv(argv: readonly string[], io: CliIo): Promise<ParsedCommand | undefined> {
  let output = "";
  let command: ParsedCommand["command"] = "run";
  const parser = yargs([...argv])
    .scriptName("agent-run")
    .usage(
      "$0 [run] <task files or globs...> [options]\n\nRun coding-agent tasks described in YAML files.",
    )
    .command(["run <tasks..>", "$0 <tasks..>"], "Run tasks (the default command)", (y) =>
      y.options(RUN_FLAGS),
    )
    .command(
      "replay <transcripts..>",
      "Re-run recorded runs offline from their transcripts and report divergences; fork with --until-step K --continue",
      (y) => y.options(REPLAY_FLAGS),
      () => {
        command = "replay";
      },
    )
    .command(
      reportCommandModule(() => {
        command = "report";
      }),
    )
    .command(
      "resume <runs..>",
      "Continue runs (DIR/<task> folders) stopped by a limit, a cancellation or a kill",
      (y) => y.options(RESUME_FLAGS),
      () => {
        command = "resume";
      },
    )
    .example("$0 'tasks/*.yaml'", "run every task in tasks/ against the API")
    .example(
      "$0 --offline 'tasks/*.yaml'",
      "play the tasks' scripted replies, no key or network needed",
    )
    .epilogue(
      "Exit codes: 0 every task passed (completed and its checks passed), 1 a task did not, 2 bad usage or input, 3 internal error, 130/143 interrupted.\nDocs: README.md, docs/transcript.md, docs/ci.md",
    )
    .version(AGENT_RUN_VERSION)
    .help()
    .alias("h", "help")
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message, error) => {
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
