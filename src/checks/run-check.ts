import { formatDuration } from "../format.js";
import { createBashTool } from "../tools/bash.js";
import type { ToolResult } from "../tools/define-tool.js";
import type { Check, CheckContext, CheckOutcome } from "./types.js";

/** Most characters of a run check's output kept for the summary; the middle of longer output is cut. */
export const MAX_CHECK_OUTPUT_CHARS = 10_000;

/** Longest command shown in a message; the name and the output carry the rest. */
const MAX_SHOWN_COMMAND_CHARS = 60;

type RunCheck = Extract<Check, { kind: "run" }>;

/**
 * Runs the check's command with the bash tool (its own timeout, process tree killed, output
 * capped) in the final workspace, under the task's sandbox when it has one; passes when it exits 0.
 */
export async function evaluateRunCheck(check: RunCheck, ctx: CheckContext): Promise<CheckOutcome> {
  const bash = createBashTool({
    timeoutMs: check.timeoutMs,
    env: ctx.baseEnv,
    maxOutputChars: MAX_CHECK_OUTPUT_CHARS,
    sandbox: ctx.sandbox ?? "none",
    sandboxLimits: ctx.sandboxLimits,
    readOnlyPaths: ctx.readOnlyPaths,
  });
  const result = await bash.execute(
    { command: check.command },
    { workspaceRoot: ctx.workspace, signal: ctx.signal },
  );
  return {
    passed: result.exitCode === 0 && !result.isError,
    message: `${showCommand(check.command)} ${describeEnding(result, check.timeoutMs, ctx.signal)}`,
    output: result.content,
  };
}

function describeEnding(result: ToolResult, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted) return "was cancelled; process tree killed";
  if (result.timedOut === true)
    return `timed out after ${formatDuration(timeoutMs)}; process tree killed`;
  if (typeof result.exitCode === "number") return `exited with code ${result.exitCode}`;
  // Killed by a signal, too much output, failed to start: the tool's closing line says which.
  const closing = result.content.trimEnd().split("\n").at(-1) ?? "";
  return `did not finish: ${closing.replace(/^\[|\]$/g, "")}`;
}

function showCommand(command: string): string {
  const oneLine = command.replace(/\s+/g, " ").trim();
  const shown =
    oneLine.length > MAX_SHOWN_COMMAND_CHARS
      ? `${oneLine.slice(0, MAX_SHOWN_COMMAND_CHARS - 1)}…`
      : oneLine;
  return `\`${shown}\``;
}
