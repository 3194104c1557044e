import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { formatDuration } from "../format.js";
import { type CommandEnd, startCommand } from "../process/run-process.js";
import { MAX_TIMER_MS } from "../timer.js";
import { type CommandPolicy, checkCommand, describeRefusal } from "./command-policy.js";
import type { ToolContext, ToolResult } from "./define-tool.js";
import { createOutputCollector, type OutputCollector } from "./output-collector.js";
import { closeOutputAfterExit, guardProcessTree, OUTPUT_CUT_NOTE } from "./process-tree.js";
import {
  assertSandboxAvailable,
  buildBwrapCommand,
  DEFAULT_SANDBOX_LIMITS,
  type Sandbox,
  type SandboxedCommand,
  type SandboxLimits,
  type SandboxUser,
  sandboxUser,
  shellFlags,
} from "./sandbox.js";
import { MAX_TOOL_OUTPUT_CHARS } from "./truncate.js";

// How the tools that run a shell command (bash, and a task's command tools) run it: the command
// policy first, then `bash -c` in the workspace (under bubblewrap when sandboxed), its whole
// process tree killed on timeout or cancellation, its output capped while it streams, and one
// closing line saying how it ended.

/** Most characters of a command's output kept for the transcript (head and tail, ~1 MB). */
const MAX_RECORDED_OUTPUT_CHARS = 1_000_000;

/** Settings fixed per run; the model chooses only the command (bash) or the input (a command tool). */
export type ShellOptions = {
  /** Per-command limit; on expiry the whole process tree is killed. */
  timeoutMs: number;
  /**
   * The command's complete environment. The tool never adds `process.env` to it: the caller builds
   * it (and leaves out the API key).
   */
  env: Record<string, string>;
  /** Characters of output shown to the model; the middle of longer output is cut. */
  maxOutputChars?: number | undefined;
  /** Characters of output kept for the transcript (`recordedContent`); at least `maxOutputChars`. */
  maxRecordedChars?: number | undefined;
  /** The task's allow and deny patterns; the built-in rules apply even without one. */
  policy?: CommandPolicy | undefined;
  /** `"bwrap"` runs each command under bubblewrap; `resolveShellSettings` throws when it is missing. */
  sandbox?: Sandbox | undefined;
  /** What a sandboxed command may use; `DEFAULT_SANDBOX_LIMITS` when left out. */
  sandboxLimits?: Readonly<SandboxLimits> | undefined;
  /**
   * Paths inside the workspace a sandboxed command may not change (`sandboxReadOnlyPaths`). While
   * a promise of them is pending, commands wait; when it fails, they fail without running.
   */
  readOnlyPaths?: readonly string[] | Promise<readonly string[]> | undefined;
};

/** The settings a command needs, resolved once per tool. */
export type ShellSettings = {
  timeoutMs: number;
  env: Record<string, string>;
  maxOutputChars: number;
  maxRecordedChars: number;
  policy: CommandPolicy | undefined;
  /** How commands are sandboxed; undefined when they are not. */
  sandbox: SandboxSettings | undefined;
};

type SandboxSettings = {
  /** Absolute path of bubblewrap. */
  bwrapPath: string;
  limits: Readonly<SandboxLimits>;
  readOnlyPaths: Promise<readonly string[]>;
  /** Who commands run as when agent-run is root. */
  user: SandboxUser | undefined;
};

/** One command to run: what the policy checks and the shell runs, and what it reads on stdin. */
export type ShellCall = {
  /** Names the tool in a refusal (`bash: refused by …`). */
  toolName: string;
  command: string;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  input?: Uint8Array | undefined;
};

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

/**
 * Resolves a tool's settings once. Throws `ConfigError` when the sandbox it asks for is not
 * installed, so that a run never goes on unsandboxed.
 */
export function resolveShellSettings(options: ShellOptions): ShellSettings {
  const maxOutputChars = options.maxOutputChars ?? MAX_TOOL_OUTPUT_CHARS;
  return {
    timeoutMs: Math.min(options.timeoutMs, MAX_TIMER_MS),
    env: options.env,
    maxOutputChars,
    maxRecordedChars: Math.max(
      options.maxRecordedChars ?? MAX_RECORDED_OUTPUT_CHARS,
      maxOutputChars,
    ),
    policy: options.policy,
    sandbox: sandboxSettings(options),
  };
}

function sandboxSettings(options: ShellOptions): SandboxSettings | undefined {
  const bwrapPath = assertSandboxAvailable(options.sandbox ?? "none", options.env.PATH);
  if (bwrapPath === undefined) return undefined;
  const readOnlyPaths = Promise.resolve(options.readOnlyPaths ?? []);
  // Awaited by each command; a failure before the first one must not go unhandled.
  readOnlyPaths.catch(() => {});
  return {
    bwrapPath,
    limits: options.sandboxLimits ?? DEFAULT_SANDBOX_LIMITS,
    readOnlyPaths,
    user: sandboxUser(options.env.PATH),
  };
}

/**
 * Runs one command in the workspace root and reports its combined output and how it ended. A
 * command the policy refuses never runs (`isRefused`). Never throws.
 */
export async function runShellCommand(
  call: ShellCall,
  ctx: ToolContext,
  settings: ShellSettings,
): Promise<ToolResult> {
  const verdict = checkCommand(call.command, settings.policy);
  if (!verdict.allowed) {
    return {
      content: describeRefusal(verdict.rule, call.toolName),
      isError: true,
      isRefused: true,
    };
  }
  if (ctx.signal.aborted) {
    return { content: "(not run)\n[cancelled]", isError: true, exitCode: null, timedOut: false };
  }
  const readOnlyPaths = await readOnlyPathsOf(settings);
  if (!readOnlyPaths.ok) return failedToStart(readOnlyPaths.message);
  // One pipe for both streams keeps stderr lines in place among stdout lines.
  const { file, args, fd3 } = buildShellCommand(
    `exec 2>&1\n${call.command}`,
    ctx.workspaceRoot,
    settings,
    readOnlyPaths.paths,
  );
  // The shell leads a new process group (`detached`), so the whole tree can be killed at once.
  const started = startCommand(file, args, {
    cwd: ctx.workspaceRoot,
    env: settings.env,
    detached: true,
    input: call.input,
    fd3,
  });
  const collector = createOutputCollector(settings.maxRecordedChars);
  collectOutput(started.output, collector);
  if (started.pid === undefined) {
    // Arguments refused (a NUL byte), a missing shell or folder: nothing ran.
    return failedToStart((await started.ended).startError);
  }
  const guard = guardProcessTree(started.pid, settings.timeoutMs, ctx.signal);
  // Kill leftovers (`server &`) once the shell exits: they would hold the output pipe open.
  void started.exited.then(guard.kill);
  const outputCloser = closeOutputAfterExit(started.exited, started.output);
  try {
    const result = await started.ended;
    const outcome = describeOutcome(result, guard.hasTimedOut(), ctx.signal, settings.timeoutMs);
    const note = outputCloser.hasCutOutput() ? `${OUTPUT_CUT_NOTE}\n` : "";
    const show = (maxChars: number) => `${showOutput(collector, maxChars)}\n${note}${outcome.line}`;
    const content = show(settings.maxOutputChars);
    const recordedContent = show(settings.maxRecordedChars);
    return {
      content,
      ...(recordedContent === content ? {} : { recordedContent }),
      isError: outcome.isError,
      exitCode: result.exitCode,
      timedOut: outcome.timedOut,
    };
  } finally {
    outputCloser.stop();
    guard.stop();
  }
}

function failedToStart(message: string | undefined): ToolResult {
  return {
    content: `(no output)\n[failed to start: ${message ?? "unknown error"}]`,
    isError: true,
    exitCode: null,
    timedOut: false,
  };
}

type ReadOnlyPaths = { ok: true; paths: readonly string[] } | { ok: false; message: string };

/** The paths a sandboxed command may not change, once known ([] without the sandbox). */
async function readOnlyPathsOf(settings: ShellSettings): Promise<ReadOnlyPaths> {
  if (settings.sandbox === undefined) return { ok: true, paths: [] };
  try {
    return { ok: true, paths: await settings.sandbox.readOnlyPaths };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** `shell -c script` in the workspace, wrapped in bubblewrap when the tool is sandboxed. */
function buildShellCommand(
  script: string,
  workspaceRoot: string,
  settings: ShellSettings,
  readOnlyPaths: readonly string[],
): SandboxedCommand {
  const { sandbox } = settings;
  if (sandbox === undefined) return { file: SHELL, args: [...shellFlags(SHELL), "-c", script] };
  return buildBwrapCommand({
    bwrapPath: sandbox.bwrapPath,
    workspaceRoot,
    shell: SHELL,
    script,
    limits: sandbox.limits,
    readOnlyPaths,
    user: sandbox.user,
    env: settings.env,
  });
}

/** Feeds the streams to the collector as they arrive (each decodes UTF-8 across chunk borders). */
function collectOutput(
  streams: readonly (Readable | null | undefined)[],
  collector: OutputCollector,
) {
  for (const stream of streams) {
    if (stream === null || stream === undefined) continue;
    stream.setEncoding("utf8");
    stream.on("data", (text: string) => collector.push(text));
    // A read error ends the output early; it must not become an uncaught exception.
    stream.on("error", () => {});
  }
}

function showOutput(collector: OutputCollector, maxChars: number): string {
  const text = collector.render(maxChars);
  return text === "" ? "(no output)" : text;
}

type Outcome = { line: string; isError: boolean; timedOut: boolean };

/** The closing line of a result, in order of what matters most to the model. */
function describeOutcome(
  result: CommandEnd,
  hasTimerFired: boolean,
  run: AbortSignal,
  timeoutMs: number,
): Outcome {
  const timedOut = hasTimerFired;
  if (run.aborted) {
    const why =
      run.reason === "timeout" ? "the task's time limit was reached" : "the run was cancelled";
    return { line: `[cancelled: ${why}; process tree killed]`, isError: true, timedOut };
  }
  if (timedOut) {
    const line = `[timed out after ${formatDuration(timeoutMs)}; process tree killed]`;
    return { line, isError: true, timedOut };
  }
  if (result.signal !== null) {
    return { line: `[killed by signal ${result.signal}]`, isError: true, timedOut };
  }
  const exitCode = result.exitCode ?? -1;
  return { line: `[exit code: ${exitCode}]`, isError: exitCode !== 0, timedOut };
}
