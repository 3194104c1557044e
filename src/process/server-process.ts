import type { Readable, Writable } from "node:stream";
import { within } from "../timer.js";
import { guardGroup, OUTPUT_GRACE_MS } from "./process-group.js";
import { type CommandEnd, startCommand } from "./run-process.js";

// A long-lived process agent-run talks to over stdin and stdout (an MCP server). It starts like
// every process, in `startCommand` (exactly the environment given, nothing inherited), as the
// leader of a process group of its own: stopping it kills the group, so nothing it started is left
// behind, and the reaper kills the group if agent-run dies first. What it writes to stderr is kept
// only as a bounded tail, for error messages.

/** How long `stop` waits for the killed process's pipes to close. */
const STOP_WAIT_MS = 2_000;

/** A server process started with `startServerProcess`. */
export type ServerProcess = {
  /** Its pid; undefined when it could not start (`exited` then says why). */
  pid: number | undefined;
  stdin: Writable | undefined;
  stdout: Readable | undefined;
  /** The end of what it wrote to stderr so far: at most `maxStderrChars` characters. */
  stderrTail: () => string;
  /** Settles once the process itself has exited, with how; at once when it could not start. */
  exited: Promise<CommandEnd>;
  /** Settles once it has exited and its pipes are closed (its last stderr read). */
  ended: Promise<CommandEnd>;
  /** Kills its whole process group and waits (boundedly) for its pipes to close. Never throws. */
  stop: () => Promise<void>;
};

/** Starts `file` with `args` in `cwd`, in a process group of its own, stdin and stdout piped. */
export function startServerProcess(
  file: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    fd3?: Uint8Array | undefined;
    maxStderrChars: number;
  },
): ServerProcess {
  const started = startCommand(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdin: "pipe",
    fd3: options.fd3,
  });
  const [stdout, stderr] = started.output;
  let tail = "";
  stderr?.setEncoding("utf8");
  stderr?.on("data", (text: string) => {
    tail = (tail + text).slice(-options.maxStderrChars);
  });
  // Writing to a server that died fails with EPIPE: the caller learns it from `exited`.
  started.input?.on("error", () => {});
  const base = {
    stdin: started.input,
    stdout,
    stderrTail: () => tail,
    exited: started.exited,
    ended: started.ended,
  };
  const { pid } = started;
  if (pid === undefined) return { ...base, pid, stop: async () => {} };
  const group = guardGroup(pid);
  const closeOutput = () => {
    for (const stream of started.output) stream.destroy();
  };
  // Once it exits, what it left running in its group goes too; a process that left the group
  // (`setsid`) could hold the pipes open for ever, so they are closed after a grace period.
  void started.exited.then(() => {
    group.kill();
    setTimeout(closeOutput, OUTPUT_GRACE_MS).unref();
  });
  const stop = async () => {
    group.kill();
    await within(started.ended, STOP_WAIT_MS);
    closeOutput();
    group.kill();
    group.release();
  };
  return { ...base, pid, stop };
}
