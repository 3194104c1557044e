import type { ErrorKind, RunResult, RunStatus } from "../agent/events.js";
import { ZERO_USAGE } from "../model/model-client.js";
import { runFingerprint } from "../report/fingerprint.js";
import type { TaskSummary } from "../report/summary.js";
import type { RunOptionsOfSummary } from "./run-options.js";

// How a run's outcome is worked out from what its steps left: the agent's result, agent-run's
// own problems, and what the run produced.

/**
 * The run's result, or an `error` result when the run could not start or finish: agent-run's own
 * `problems`, which failed on `problemKind` (the workspace, or `other`).
 */
export function finalResult(
  result: RunResult | undefined,
  problems: readonly string[],
  elapsedMs: number,
  problemKind: ErrorKind = "other",
): RunResult {
  if (problems.length === 0 && result !== undefined) return result;
  const base = result ?? emptyResult("error", undefined, elapsedMs);
  const errors = [base.error, ...problems].filter((text): text is string => text !== undefined);
  // The same problem may be met twice (a transcript that cannot be written, at each line).
  const error = [...new Set(errors)].join("; ");
  return { ...base, status: "error", error, errorKind: problemKind };
}

/** A result for a run that made no model call. */
export function emptyResult(
  status: RunStatus,
  error: string | undefined,
  elapsedMs: number,
): RunResult {
  return {
    status,
    steps: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
    finalText: "",
    stopReason: null,
    durationMs: Math.round(elapsedMs),
    apiDurationMs: 0,
    error,
  };
}

/** What a run produced beside its result, for the summary. */
type Produced = Pick<
  TaskSummary,
  | "changedFiles"
  | "costUsd"
  | "workspace"
  | "runDir"
  | "patchFile"
  | "gitChanges"
  | "checks"
  | "plan"
>;

/** The task's summary: `summary.json` and the final table. Passed: completed, every check passed. */
export function toSummary(
  options: RunOptionsOfSummary,
  final: RunResult,
  produced: Produced,
): TaskSummary {
  return {
    name: options.task.name,
    taskFile: options.task.file,
    status: final.status,
    error: final.error,
    errorKind: final.status === "error" ? (final.errorKind ?? "other") : undefined,
    model: options.modelName,
    steps: final.steps,
    usage: final.usage,
    durationMs: final.durationMs,
    finalText: final.finalText,
    ...produced,
    passed: final.status === "completed" && produced.checks.every((check) => check.passed),
    origin: options.origin,
    trial: options.trial,
    attempt: options.attempt,
    earlierAttempts: options.earlierAttempts,
    limitExceededByFinalReply: final.limitExceededByFinalReply,
    structuredOutput: final.structuredOutput,
    fingerprint: runFingerprint(options.task, options.modelName, options.prices),
  };
}
