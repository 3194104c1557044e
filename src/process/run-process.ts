import type { Readable } from "node:stream";
import { execa } from "execa";

// The one home of execa: every process agent-run starts (the agent's commands, checks, git)
// starts here, with exactly the environment given (nothing inherited) and stdin closed unless
// there is input.

/** How to run one short-lived command whose whole output we want. */
export type ProcessOptions = {
  /** Where it runs; the current folder when left out. */
  cwd?: string;
  /** The complete environment (nothing is inherited). */
  env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** The process is killed, and the call fails, when stdout grows past this. */
  maxOutputBytes: number;
};

/** Why a command failed; `stderr` is what it printed there, `code` the spawn error's (ENOENT). */
export class ProcessError extends Error {
  constructor(
    message: string,
    readonly stderr: Buffer,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "ProcessError";
  }
}

/**
 * Runs `file` with `args` and resolves to its stdout bytes when it exits with 0; otherwise
 * rejects with a `ProcessError` that carries its stderr.
 */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<Buffer> {
  const result = await execa(file, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env,
    extendEnv: false,
    ...(options.input === undefined ? { stdin: "ignore" } : { input: options.input }),
    encoding: "buffer",
    maxBuffer: options.maxOutputBytes,
    stripFinalNewline: false,
    reject: false,
  });
  const stderr = toBuffer(result.stderr);
  if (result.isMaxBuffer) {
    throw new ProcessError(`output larger than ${options.maxOutputBytes} bytes`, stderr, undefined);
  }
  if (result.exitCode === 0) return toBuffer(result.stdout);
  const code = typeof result.code === "string" ? result.code : undefined;
  const reason =
    result.exitCode !== undefined
      ? `exit code ${result.exitCode}`
      : result.signal !== undefined
        ? `signal ${result.signal}`
        : (result.shortMessage ?? "failed");
  throw new ProcessError(reason, stderr, code);
}

/** How a started command ended; `startError` when it never ran (then both codes are null). */
export type CommandEnd = {
  exitCode: number | null;
  signal: string | null;
  startError?: string;
};

/** A command started with `startCommand`. */
export type StartedCommand = {
  /** Its pid; undefined when it could not start. */
  pid: number | undefined;
  /** Its stdout and stderr as they come (read them in flowing mode); empty when it did not start. */
  output: Readable[];
  /** Settles once the process itself has ended (its output may still be open). */
  exited: Promise<void>;
  /** Settles once it has ended and its output is closed (read to the end, or destroyed). */
  ended: Promise<CommandEnd>;
};

/**
 * Starts a long-running command whose output is read as it streams (the bash tool caps what it
 * keeps). `detached` makes it the leader of a new process group, so that `kill(-pid)` reaches
 * everything it starts. Never throws: a command that cannot start ends with `startError`.
 */
export function startCommand(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; detached: boolean },
): StartedCommand {
  let subprocess: ReturnType<typeof spawnStreaming>;
  try {
    subprocess = spawnStreaming(file, args, options);
  } catch (error) {
    // Arguments execa refuses before starting anything, such as a NUL byte.
    const startError = error instanceof Error ? error.message : String(error);
    const ended = Promise.resolve({ exitCode: null, signal: null, startError });
    return { pid: undefined, output: [], exited: ended.then(() => {}), ended };
  }
  const output = [subprocess.stdout, subprocess.stderr];
  // A read error ends the output early; it must not become an uncaught exception.
  for (const stream of output) stream.on("error", () => {});
  const ended = subprocess.then((result): CommandEnd => {
    if (subprocess.pid === undefined) {
      return { exitCode: null, signal: null, startError: result.shortMessage ?? "did not start" };
    }
    return { exitCode: result.exitCode ?? null, signal: result.signal ?? null };
  });
  const exited = new Promise<void>((resolve) => {
    subprocess.once("exit", () => resolve());
    void ended.then(() => resolve());
  });
  return { pid: subprocess.pid, output, exited, ended };
}

function spawnStreaming(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; detached: boolean },
) {
  return execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    stdin: "ignore",
    buffer: false,
    detached: options.detached,
    reject: false,
  });
}

function toBuffer(bytes: Uint8Array | string | unknown): Buffer {
  if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return Buffer.from(typeof bytes === "string" ? bytes : "");
}
