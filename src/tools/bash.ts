import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { execa } from "execa";
import { z } from "zod";
import { defineTool, type Tool, type ToolContext, type ToolResult } from "./define-tool.js";
import { MAX_TOOL_OUTPUT_CHARS, truncateMiddle } from "./truncate.js";

/**
 * Most output (stdout + stderr, in characters) kept in memory per command; past it execa stops
 * reading and the command usually dies of SIGPIPE (execa keeps `stdout` and `all`, so up to twice
 * this). TODO: a streaming cap keeping only head and tail would bound memory to what is shown.
 */
export const MAX_BASH_BUFFER_CHARS = 10_000_000;

/** Settings fixed per run; the model chooses only the command. */
export type BashToolOptions = {
  /** Per-command limit; on expiry the whole process tree is killed. */
  timeoutMs: number;
  /**
   * The command's complete environment. The tool never adds `process.env` to it: the caller builds
   * it (and leaves out the API key).
   */
  env: Record<string, string>;
  /** Characters of output shown to the model; the middle of longer output is cut. */
  maxOutputChars?: number;
};

const BashInputSchema = z
  .object({
    command: z
      .string()
      .min(1)
      .describe("The shell command to run, e.g. `npm test 2>&1 | tail -50`."),
  })
  .strict();

/** Node timers overflow past this (~24.8 days) and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : true;

/** The bash tool: runs one shell command in the workspace and reports its output and exit code. */
export function createBashTool(options: BashToolOptions): Tool {
  const maxOutputChars = options.maxOutputChars ?? MAX_TOOL_OUTPUT_CHARS;
  return defineTool({
    name: "bash",
    description: describeBash(options.timeoutMs, maxOutputChars),
    input: BashInputSchema,
    run: (input, ctx) => runCommand(input.command, ctx, options, maxOutputChars),
  });
}

function describeBash(timeoutMs: number, maxOutputChars: number): string {
  return [
    "Run a shell command (bash) in the workspace root and return its combined stdout and stderr,",
    "followed by its exit code. Each call starts a fresh shell: `cd` and variables do not carry over.",
    "stdin is closed, so interactive programs get end-of-file; pass flags like --yes instead.",
    `Commands are killed after ${formatDuration(timeoutMs)}, together with everything they started;`,
    "background processes are killed with it, and the call does not wait for detached ones.",
    `Output beyond ${maxOutputChars} characters is cut in the middle; pipe through head, tail or grep`,
    "to keep it short.",
  ].join(" ");
}

async function runCommand(
  command: string,
  ctx: ToolContext,
  options: BashToolOptions,
  maxOutputChars: number,
): Promise<ToolResult> {
  if (ctx.signal.aborted) {
    return { content: "(not run)\n[cancelled]", isError: true, exitCode: null, timedOut: false };
  }
  const timeoutMs = Math.min(options.timeoutMs, MAX_TIMER_MS);
  // One pipe for both streams keeps stderr lines in place among stdout lines; `all` is the fallback.
  const subprocess = execa(`exec 2>&1\n${command}`, {
    shell: SHELL,
    cwd: ctx.workspaceRoot,
    env: options.env,
    extendEnv: false,
    stdin: "ignore",
    all: true,
    reject: false,
    timeout: timeoutMs,
    cancelSignal: ctx.signal,
    maxBuffer: MAX_BASH_BUFFER_CHARS,
    detached: true,
  });
  const guard = guardProcessTree(subprocess.pid, timeoutMs, ctx.signal);
  // Kill leftovers (`server &`) once the shell exits: they would hold the output pipe open.
  subprocess.once("exit", guard.kill);
  const outputCloser = closeOutputAfterExit(subprocess, [
    subprocess.stdout,
    subprocess.stderr,
    subprocess.all,
  ]);
  try {
    const result = await subprocess;
    const outcome = describeOutcome(result, guard.hasTimedOut(), ctx.signal, timeoutMs);
    const output = result.all === undefined || result.all === "" ? "(no output)" : result.all;
    const note = outputCloser.hasCutOutput() ? `${OUTPUT_CUT_NOTE}\n` : "";
    return {
      content: `${truncateMiddle(output, maxOutputChars)}\n${note}${outcome.line}`,
      isError: outcome.isError,
      exitCode: result.exitCode ?? null,
      timedOut: outcome.timedOut,
    };
  } finally {
    outputCloser.stop();
    guard.stop();
  }
}

/** How long output may keep arriving after the shell has exited before the pipes are closed. */
const OUTPUT_GRACE_MS = 300;

const OUTPUT_CUT_NOTE =
  "[output stream closed after the command exited; a background process still held it open]";

/**
 * Closes the output pipes shortly after the shell exits (on its own, or killed on timeout or
 * cancellation). A process that left the group (`setsid`) escapes the group kill and can hold the
 * pipes open for ever, and execa waits for them to close even after a timeout.
 */
function closeOutputAfterExit(
  subprocess: Pick<ChildProcess, "once" | "off">,
  streams: readonly (Readable | null | undefined)[],
) {
  let hasCutOutput = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    const stillOpen = streams.filter(
      (stream): stream is Readable => stream !== null && stream !== undefined && !stream.destroyed,
    );
    hasCutOutput = stillOpen.length > 0;
    // Without an error, execa treats the destroyed streams as finished and keeps what it read.
    for (const stream of stillOpen) stream.destroy();
  };
  const onExit = () => {
    timer = setTimeout(close, OUTPUT_GRACE_MS);
  };
  subprocess.once("exit", onExit);
  return {
    hasCutOutput: () => hasCutOutput,
    stop() {
      clearTimeout(timer);
      subprocess.off("exit", onExit);
    },
  };
}

/**
 * Kills the command's whole process group on timeout and on cancellation (execa alone would kill
 * only the shell, leaving its children running and holding the output pipe open).
 */
function guardProcessTree(pid: number | undefined, timeoutMs: number, signal: AbortSignal) {
  const kill = () => killProcessGroup(pid);
  let hasTimedOut = false;
  const timer = setTimeout(() => {
    hasTimedOut = true;
    kill();
  }, timeoutMs);
  signal.addEventListener("abort", kill);
  return {
    kill,
    hasTimedOut: () => hasTimedOut,
    stop() {
      clearTimeout(timer);
      signal.removeEventListener("abort", kill);
      kill();
    },
  };
}

type Outcome = { line: string; isError: boolean; timedOut: boolean };

/** The fields of execa's result (or, with `reject: false`, its error) that decide the outcome. */
type Finished = {
  timedOut: boolean;
  isCanceled: boolean;
  isMaxBuffer: boolean;
  signal?: string | undefined;
  exitCode?: number | undefined;
  shortMessage?: string | undefined;
};

/** The closing line of a result, in order of what matters most to the model. */
function describeOutcome(
  result: Finished,
  hasTimerFired: boolean,
  run: AbortSignal,
  timeoutMs: number,
): Outcome {
  const timedOut = result.timedOut || hasTimerFired;
  if (result.isCanceled || run.aborted) {
    const why =
      run.reason === "timeout" ? "the task's time limit was reached" : "the run was cancelled";
    return { line: `[cancelled: ${why}; process tree killed]`, isError: true, timedOut };
  }
  if (timedOut) {
    const line = `[timed out after ${formatDuration(timeoutMs)}; process tree killed]`;
    return { line, isError: true, timedOut };
  }
  if (result.isMaxBuffer) {
    const line = `[output exceeded ${MAX_BASH_BUFFER_CHARS} characters; stopped reading it]`;
    return { line, isError: true, timedOut };
  }
  if (result.signal !== undefined) {
    return { line: `[killed by signal ${result.signal}]`, isError: true, timedOut };
  }
  if (result.exitCode === undefined) {
    return {
      line: `[failed to start: ${result.shortMessage ?? "unknown error"}]`,
      isError: true,
      timedOut,
    };
  }
  return { line: `[exit code: ${result.exitCode}]`, isError: result.exitCode !== 0, timedOut };
}

/** SIGKILLs the command's process group (`detached` made the shell its leader). */
function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
