/**
 * The process around the CLI, injectable so tests can run `main` in-process. Relative paths are
 * resolved from `process.cwd()`.
 */
export type CliIo = {
  env: Readonly<Record<string, string | undefined>>;
  writeOut: (line: string) => void;
  writeErr: (line: string) => void;
  /** Colours on stderr: a TTY, and neither `CI` nor `NO_COLOR` set. */
  isColor: boolean;
};

/** The real process's streams and environment. */
export function processIo(): CliIo {
  const env = process.env;
  return {
    env,
    writeOut: (line) => process.stdout.write(`${line}\n`),
    writeErr: (line) => process.stderr.write(`${line}\n`),
    isColor: process.stderr.isTTY === true && !env.CI && !env.NO_COLOR && env.TERM !== "dumb",
  };
}
