import type { Redactor } from "../redact.js";
import type { ReportIo } from "../report/reporter.js";

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
  return {
    env,
    writeOut: (line) => process.stdout.write(`${line}\n`),
    writeErr: (line) => process.stderr.write(`${line}\n`),
    writeErrRaw: process.stderr.isTTY === true ? (text) => process.stderr.write(text) : undefined,
    columns: process.stderr.columns ?? 100,
    isColor: process.stderr.isTTY === true && !env.CI && !env.NO_COLOR && env.TERM !== "dumb",
  };
}

/** The same io, with every line written passed through `redact` first. */
export function withRedaction(io: CliIo, redact: Redactor): CliIo {
  const writeRaw = io.writeErrRaw;
  return {
    ...io,
    redact,
    writeOut: (line) => io.writeOut(redact(line)),
    writeErr: (line) => io.writeErr(redact(line)),
    writeErrRaw: writeRaw === undefined ? undefined : (text) => writeRaw(redact(text)),
  };
}
