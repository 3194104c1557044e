import { messageOf } from "../errors.js";
import { formatDuration, oneLine } from "../format.js";
import type { CommandEnd } from "../process/run-process.js";
import type { ServerProcess } from "../process/server-process.js";
import { within } from "../timer.js";

// Why an MCP server failed, in words for the init line and the model. A server's stderr and
// error messages are hostile: only their last lines are quoted, each cut and on one line, with
// control characters shown as \xNN (redaction comes after, on everything written or sent).

/** Most lines, and characters per line, of a server's stderr quoted in a message. */
const MAX_STDERR_LINES = 10;
const MAX_LINE_CHARS = 300;

/** How long a message waits for the server's exit status and last stderr once its connection closed. */
const END_WAIT_MS = 1_000;

/** The last lines of what a server wrote to stderr, as `; its last stderr lines: …` (or nothing). */
function stderrSuffix(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => oneLine(line, MAX_LINE_CHARS))
    .filter((line) => line !== "")
    .slice(-MAX_STDERR_LINES);
  return lines.length === 0
    ? ""
    : `; its last stderr lines:\n${lines.map((line) => `  ${line}`).join("\n")}`;
}

/** A server's (or the SDK's) error message on one line, cut. */
export function errorText(error: unknown): string {
  return oneLine(messageOf(error), 1_000);
}

/** How long a failed start waits for the process to exit, to tell an exit from a refusal. */
const EXIT_WAIT_MS = 200;

/**
 * How the process ended, its last stderr read (waiting at most END_WAIT_MS, and for its exit at
 * most `exitWaitMs`); undefined while it still runs.
 */
async function endOf(
  process: ServerProcess,
  exitWaitMs = END_WAIT_MS,
): Promise<CommandEnd | undefined> {
  const hasExited = await within(
    process.exited.then(() => true),
    exitWaitMs,
  );
  return hasExited === true ? within(process.ended, END_WAIT_MS) : undefined;
}

function describeHow(end: CommandEnd | undefined): string {
  if (end === undefined) return "closed its connection";
  if (end.signal !== null) return `was killed by ${end.signal}`;
  return `exited with code ${end.exitCode ?? "unknown"}`;
}

/**
 * A server whose connection closed (`when`: "during the call"): how it ended and its last stderr
 * lines. Its tools answer with this for the rest of the run.
 */
export async function describeEnd(
  server: string,
  process: ServerProcess,
  when: string,
): Promise<string> {
  const how = describeHow(await endOf(process));
  return `MCP server "${server}" ${how} ${when}, so its tools cannot be called for the rest of the run${stderrSuffix(process.stderrTail())}`;
}

/** Why a server did not get as far as listing its tools. */
export async function describeStartFailure(
  process: ServerProcess,
  error: unknown,
  why: { isCancelled: boolean; isTimedOut: boolean; timeoutMs: number },
): Promise<string> {
  if (why.isCancelled) return "not started: the run was cancelled while it started";
  const stderr = () => stderrSuffix(process.stderrTail());
  if (why.isTimedOut) {
    return `did not answer initialize and tools/list within ${formatDuration(why.timeoutMs)} (startup_timeout)${stderr()}`;
  }
  const end = await endOf(process, EXIT_WAIT_MS);
  if (end !== undefined) return `${describeHow(end)} before it was ready${stderr()}`;
  return `initialize or tools/list failed: ${errorText(error)}${stderr()}`;
}
