import { type ChildProcess, spawn } from "node:child_process";
import { Readable } from "node:stream";

/** One command to start: nothing is inherited, and stdin is /dev/null unless `input` is given. */
export type SubprocessOptions = {
  file: string;
  args: readonly string[];
  /** Where it runs; the current folder when left out. */
  cwd?: string | undefined;
  /** The complete environment. */
  env: Record<string, string>;
  /** Make it the leader of a new process group, so that `kill(-pid)` reaches all it starts. */
  detached?: boolean;
  /** Written to stdin, which is then closed. */
  input?: string | Uint8Array | undefined;
};

/** How a process ended; `error` when it never ran or was lost track of (then both codes are null). */
export type Exit = { exitCode: number | null; signal: NodeJS.Signals | null; error?: Error };

/**
 * A started command. Its output streams exist at once; read them in flowing mode (a spawn
 * helper's output is pushed into them as it comes, without backpressure).
 */
export type Subprocess = {
  /** Its pid once it runs; rejects with node's error (`code` ENOENT...) when it could not start. */
  started: Promise<number>;
  stdout: Readable;
  stderr: Readable;
  /** Settles when the process has ended; its output may still be open (a background child holds it). */
  exited: Promise<Exit>;
  /** Settles once it has ended and its output is closed (read to the end, or destroyed). */
  closed: Promise<Exit>;
  /** Signals the process itself (not its group); does nothing once it has ended. */
  kill(signal?: NodeJS.Signals): void;
};

/** Starts a command with node's own `spawn`, from this process. */
export function startDirectly(options: SubprocessOptions): Subprocess {
  let child: ChildProcess;
  try {
    child = spawn(options.file, options.args, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: options.detached === true,
    });
  } catch (error) {
    // Arguments node refuses before starting anything, e.g. a NUL byte.
    return failedSubprocess(error instanceof Error ? error : new Error(String(error)));
  }
  const started = new Promise<number>((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid ?? 0));
    child.once("error", reject);
  });
  // "error" without "spawn" is a failed start: nothing ran, and "close" may never come.
  const failedStart = started.then(
    () => new Promise<never>(() => {}),
    (error: Error): Exit => ({ exitCode: null, signal: null, error }),
  );
  const exited = Promise.race([
    new Promise<Exit>((resolve) =>
      child.once("exit", (exitCode, signal) => resolve({ exitCode, signal })),
    ),
    failedStart,
  ]);
  const closed = Promise.race([
    new Promise<Exit>((resolve) =>
      child.once("close", (exitCode, signal) => resolve({ exitCode, signal })),
    ),
    failedStart,
  ]);
  started.catch(() => {});
  child.stdin?.on("error", () => {}); // a command may exit without reading all its input
  child.stdin?.end(options.input);
  return {
    started,
    stdout: child.stdout ?? Readable.from([]),
    stderr: child.stderr ?? Readable.from([]),
    exited,
    closed,
    kill: (signal) => {
      child.kill(signal);
    },
  };
}

/** A command that could not start: its output is empty and every promise says why. */
function failedSubprocess(error: Error): Subprocess {
  const ended: Exit = { exitCode: null, signal: null, error };
  const started = Promise.reject(error);
  started.catch(() => {});
  return {
    started,
    stdout: Readable.from([]),
    stderr: Readable.from([]),
    exited: Promise.resolve(ended),
    closed: Promise.resolve(ended),
    kill: () => {},
  };
}
