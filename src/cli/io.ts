/** The process around the CLI, injectable so tests can run `main` in-process. */
export type CliIo = {
  env: Readonly<Record<string, string | undefined>>;
  /** Folder that relative paths and globs are resolved from. */
  cwd: string;
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
    cwd: process.cwd(),
    writeOut: (line) => process.stdout.write(`${line}\n`),
    writeErr: (line) => process.stderr.write(`${line}\n`),
    isColor: process.stderr.isTTY === true && !env.CI && !env.NO_COLOR && env.TERM !== "dumb",
  };
}
