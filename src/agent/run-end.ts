import { textOf } from "../model/model-client.js";
import type { ErrorKind, LimitHit, RunResult, RunStatus } from "./events.js";
import { type FinalJudgement, judgeFinalReply } from "./final-output.js";
import { describeLimit } from "./limit-text.js";
import type { RunState } from "./run-state.js";

// How a loop ends: the result it returns for each way a run (or a subagent's run) can stop.

/** The result of a run that ends now with `status`. */
export function end(state: RunState, status: RunStatus, error?: string): RunResult {
  return {
    status,
    steps: state.budget.steps,
    usage: state.budget.usage,
    costUsd: state.budget.spentUsd,
    finalText: state.lastReply === undefined ? "" : textOf(state.lastReply.content),
    stopReason: state.lastReply?.stopReason ?? null,
    durationMs: Math.round(performance.now() - state.startedAt),
    apiDurationMs: Math.round(state.apiDurationMs),
    error,
  };
}

/** The run failed with `error`, saying why and on what (see `ErrorKind`). */
export function endWithError(state: RunState, error: string, errorKind: ErrorKind): RunResult {
  return { ...end(state, "error", error), errorKind };
}

/** The run was aborted: a timeout (the signal's reason says so) or a cancellation. */
export function endAborted(state: RunState): RunResult {
  const { options } = state;
  if (options.signal.reason !== "timeout") return end(state, "cancelled", "the run was cancelled");
  const elapsedMs = Math.round(performance.now() - state.startedAt);
  const max = options.limits.timeoutMs ?? elapsedMs;
  // The timer started before the loop did, so the loop's own clock can read a little under it.
  return endAtLimit(state, { limit: "timeout", used: Math.max(elapsedMs, max), max });
}

/**
 * A reply took the run past its token or cost limit. When it was the final answer (no tool calls,
 * the turn ended) the run completed: no further call was made, and the result records the excess.
 */
export function endPastLimit(state: RunState, hit: LimitHit, hasNoCalls: boolean): RunResult {
  const stopReason = state.lastReply?.stopReason ?? null;
  const isFinal = hasNoCalls && !["max_tokens", "pause_turn", "refusal"].includes(stopReason ?? "");
  if (
    !isFinal ||
    (hit.limit !== "max_tokens" && hit.limit !== "max_cost") ||
    Number.isNaN(hit.used)
  )
    return endAtLimit(state, hit);
  // A structured output's retry would take another call, which the limit forbids.
  const judged = judgeFinalReply(state);
  if (judged.kind === "retry") return endAtLimit(state, hit);
  if (judged.kind === "invalid") return endWithFinalReply(state, judged);
  const exceeded = { limit: hit.limit, used: hit.used, max: hit.max };
  return { ...endWithFinalReply(state, judged), limitExceededByFinalReply: exceeded };
}

/** The run ends with its final reply: completed (with its structured output), or `invalid_output`. */
export function endWithFinalReply(
  state: RunState,
  judged: Exclude<FinalJudgement, { kind: "retry" }>,
): RunResult {
  if (judged.kind === "invalid") return end(state, "invalid_output", judged.error);
  const result = end(state, "completed");
  const value = judged.structuredOutput;
  return value === undefined ? result : { ...result, structuredOutput: value };
}

/** A limit stopped the run at the current step: a `limit_reached` event, then the result. */
export function endAtLimit(state: RunState, hit: LimitHit): RunResult {
  state.emit({ type: "limit_reached", step: state.step, ...hit });
  return endStoppedBy(state, hit);
}

/**
 * A limit stopped the run; its `limit_reached` event was already reported (by the subagent that
 * reached it, when a subagent's call or reply took the whole run to the limit).
 */
export function endStoppedBy(state: RunState, hit: LimitHit): RunResult {
  return { ...end(state, hit.limit, describeLimit(hit)), stoppedBy: hit };
}
