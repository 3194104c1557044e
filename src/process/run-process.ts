import type { Readable, Writable } from "node:stream";
import { execa } from "execa";

// The one home of execa: every process agent-run starts (the agent's commands, checks, git,
// the reaper) starts here, with exactly the environment given (nothing inherited) and stdin
// closed unless there is input. Output is read as it streams (execa's `buffer: false`), and kept
// here within a cap: execa's own buffering costs about twice the CPU per call, and git is called
// often.

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
  /** Exit codes that count as success besides 0 (`git check-ignore` exits 1 when nothing matched). */
  okExitCodes?: readonly number[];
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

/** How a command ended; `startError` when it never ran (then both codes are null). */
export type CommandEnd = {
  exitCode: number | null;
  signal: string | null;
  startError?: string;
  /** The spawn error's code (ENOENT...), when it never ran. */
  startCode?: string;
};

/** A command started with `startCommand`. */
export type StartedCommand = {
  /** Its pid; undefined when it could not start. */
  pid: number | undefined;
  /** Its stdout and stderr as they come (read them in flowing mode); empty when it did not start. */
  output: Readable[];
  /** Its stdin, when started with `stdin: "pipe"` (and it started). */
  input: Writable | undefined;
  /** Settles once the process itself has ended, with how (its output may still be open). */
  exited: Promise<CommandEnd>;
  /** Settles once it has ended and its output is closed (read to the end, or destroyed). */
  ended: Promise<CommandEnd>;
  /** Sends the process (not its group) a signal; nothing once it has ended. */
  kill: () => void;
};

/**
 * Runs `file` with `args` and resolves to its stdout bytes when it exits with 0; otherwise
 * rejects with a `ProcessError` that carries its stderr.
 */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<Buffer> {
  const started = startCommand(file, args, {
    env: options.env,
    detached: false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  const [stdoutStream, stderrStream] = started.output;
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  let stdoutBytes = 0;
  let isTooLarge = false;
  stdoutStream?.on("data", (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > options.maxOutputBytes) {
      isTooLarge = true;
      started.kill();
    } else if (!isTooLarge) stdout.push(chunk);
  });
  stderrStream?.on("data", (chunk: Buffer) => stderr.push(chunk));
  const end = await started.ended;
  const errors = Buffer.concat(stderr);
  if (isTooLarge) {
    throw new ProcessError(`output larger than ${options.maxOutputBytes} bytes`, errors, undefined);
  }
  if (
    end.exitCode === 0 ||
    (end.exitCode !== null && options.okExitCodes?.includes(end.exitCode))
  ) {
    return Buffer.concat(stdout);
  }
  const reason =
    end.startError ??
    (end.exitCode === null ? `signal ${end.signal ?? "unknown"}` : `exit code ${end.exitCode}`);
  throw new ProcessError(reason, errors, end.startCode);
}

/** How `startCommand` starts a command. */
type StartOptions = {
  cwd?: string;
  env: Record<string, string>;
  detached: boolean;
  /** Written to stdin, which is then closed; without it (or `stdin`) stdin is /dev/null. */
  input?: string | Uint8Array | undefined;
  /** `"pipe"`: stdin stays open for the caller to write (`StartedCommand.input`), as a server's. */
  stdin?: "pipe";
  /** Written to the command's file descriptor 3 (bubblewrap's `--ro-bind-data 3`). */
  fd3?: Uint8Array | undefined;
};

/**
 * Starts a command whose output is read as it streams. `detached` makes it the leader of a new
 * process group, so that `kill(-pid)` reaches everything it starts. Never throws: a command that
 * cannot start ends with `startError`.
 */
export function startCommand(
  file: string,
  args: readonly string[],
  options: StartOptions,
): StartedCommand {
  let subprocess: ReturnType<typeof spawn>;
  try {
    subprocess = spawn(file, args, options);
  } catch (error) {
    // Arguments execa refuses before starting anything, such as a NUL byte.
    const startError = briefly(error instanceof Error ? error.message : String(error));
    const ended = Promise.resolve({ exitCode: null, signal: null, startError });
    return { pid: undefined, output: [], input: undefined, exited: ended, ended, kill: () => {} };
  }
  if (!options.detached) {
    running.add(subprocess);
    subprocess.once("exit", () => running.delete(subprocess));
  }
  const output = [subprocess.stdout, subprocess.stderr];
  // A read error ends the output early; it must not become an uncaught exception.
  for (const stream of output) stream.on("error", () => {});
  const ended = subprocess.then((result): CommandEnd => {
    if (subprocess.pid === undefined) {
      const startCode = typeof result.code === "string" ? result.code : undefined;
      // The spawn error itself ("spawn bash ENOENT"): execa's messages also quote the command.
      const message = briefly(result.originalMessage ?? result.shortMessage ?? "did not start");
      const startError =
        startCode === undefined || message.includes(startCode)
          ? message
          : `${message} (${startCode})`;
      return { exitCode: null, signal: null, startError, ...(startCode ? { startCode } : {}) };
    }
    return { exitCode: result.exitCode ?? null, signal: result.signal ?? null };
  });
  const exited = new Promise<CommandEnd>((resolve) => {
    subprocess.once("exit", (exitCode, signal) => resolve({ exitCode, signal }));
    void ended.then(resolve);
  });
  const kill = () => {
    subprocess.kill();
  };
  const input =
    (options.stdin === "pipe" && subprocess.pid !== undefined && subprocess.stdin) || undefined;
  return { pid: subprocess.pid, output, input, exited, ended, kill };
}

function spawn(file: string, args: readonly string[], options: StartOptions) {
  // Bytes in a stdio slot are written to that descriptor, which is then closed: stdin gets the
  // input (or stays open for a server, or is /dev/null), fd 3 bubblewrap's data; one does not
  // rule out the other.
  const stdin =
    options.input === undefined
      ? (options.stdin ?? ("ignore" as const))
      : Buffer.from(options.input);
  const stdio =
    options.fd3 === undefined
      ? ([stdin, "pipe", "pipe"] as const)
      : ([stdin, "pipe", "pipe", options.fd3] as const);
  return execa(file, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env,
    extendEnv: false,
    stdio,
    buffer: false,
    detached: options.detached,
    reject: false,
  });
}

/**
 * agent-run's own short-lived processes (git) still running. A command's group is the reaper's
 * business; these share agent-run's group and would go on writing into a snapshot folder that an
 * early exit (a second Ctrl-C) removes, making it again.
 */
const running = new Set<{ kill: (signal: NodeJS.Signals) => boolean }>();

/** Kills agent-run's own processes still running, at once: for an exit that cannot wait. */
export function killOwnProcesses(): void {
  for (const subprocess of running) subprocess.kill("SIGKILL");
}

/** Most characters of a start error kept: the command it failed on may be huge. */
const MAX_START_ERROR_CHARS = 200;

/** A start error's first line, cut to MAX_START_ERROR_CHARS. */
function briefly(message: string): string {
  const line = message.split("\n", 1)[0] ?? "";
  return line.length > MAX_START_ERROR_CHARS
    ? `${line.slice(0, MAX_START_ERROR_CHARS - 1)}…`
    : line;
}

/** A long-lived process agent-run writes lines to (see `startListener`). */
export type Listener = {
  /** Writes one line to its stdin; false (nothing written) once it has ended. */
  write: (line: string) => boolean;
};

/**
 * Starts a process that reads lines on stdin for as long as agent-run lives: in a session of its
 * own (a signal to agent-run's process group or terminal does not reach it), and neither it nor
 * the pipe keeps agent-run running. Its stdin reaches end-of-file when agent-run exits, however
 * it dies (kill -9 included).
 */
export function startListener(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
): Listener {
  const subprocess = execa(file, args, {
    env,
    extendEnv: false,
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
    cleanup: false,
    buffer: false,
    reject: false,
  });
  let isAlive = subprocess.pid !== undefined;
  const { stdin } = subprocess;
  const ended = () => {
    isAlive = false;
  };
  subprocess.unref();
  (stdin as { unref?: () => void }).unref?.();
  stdin.on("error", ended);
  void subprocess.then(ended, ended);
  return {
    write(line) {
      if (!isAlive) return false;
      stdin.write(`${line}\n`);
      return true;
    },
  };
}
