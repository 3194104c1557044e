import { createRedactor, type Redactor } from "../redact.js";
import type { ReportIo } from "../report/reporter.js";
import { neutraliseCommands } from "../workflow-commands.js";

/**
 * The process around the CLI, injectable so tests can run `main` in-process. Relative paths are
 * resolved from `process.cwd()`. `redact`: `main` sets it, and wraps the writers with it.
 */
export type CliIo = ReportIo & {
  writeOut: (line: string) => void;
};

/** The real process's streams and environment. */
export function processIo(): CliIo {
  const env = process.env;
  const out = guardedWriter(process.stdout);
  const err = guardedWriter(process.stderr);
  return {
    env,
    writeOut: (line) => out(`${line}\n`),
    writeErr: (line) => err(`${line}\n`),
    writeErrRaw: process.stderr.isTTY === true ? err : undefined,
    columns: process.stderr.columns ?? 100,
    isColor: process.stderr.isTTY === true && !env.CI && !env.NO_COLOR && env.TERM !== "dumb",
  };
}

/**
 * A writer to `stream` that stops writing once the stream fails (EPIPE: the reader, `head -1`,
 * went away) instead of letting the error end the process: the batch goes on, and its
 * transcripts, summaries, reports and exit code are what they would have been.
 */
function guardedWriter(stream: NodeJS.WriteStream): (text: string) => void {
  let isBroken = false;
  stream.on("error", () => {
    isBroken = true;
  });
  return (text) => {
    if (isBroken || stream.destroyed) return;
    try {
      stream.write(text);
    } catch {
      isBroken = true;
    }
  };
}

/**
 * The io every command gets from `main`: each line written is passed through `redact`, then made
 * unable to start a GitHub workflow command (a log may be a GitHub log whatever the environment
 * says). `writeCommand`, for agent-run's own commands only, is redacted but not neutralised.
 */
export function withRedaction(io: CliIo, redact: Redactor): CliIo {
  const writeRaw = io.writeErrRaw;
  const writeCommand = io.writeCommand ?? io.writeErr;
  const guard = (text: string) => neutraliseCommands(redact(text));
  return {
    ...io,
    redact,
    writeOut: (line) => io.writeOut(guard(line)),
    writeErr: (line) => io.writeErr(guard(line)),
    writeErrRaw: writeRaw === undefined ? undefined : (text) => writeRaw(guard(text)),
    writeCommand: (line) => writeCommand(redact(line)),
  };
}

/**
 * `io` with these values hidden too (the tasks' key variables, known once the tasks are loaded),
 * on top of what `main` already hides.
 */
export function withMoreSecrets(io: CliIo, secrets: readonly string[]): CliIo {
  const more = createRedactor(secrets);
  const redact = io.redact;
  return withRedaction(io, (text) => more(redact === undefined ? text : redact(text)));
}
