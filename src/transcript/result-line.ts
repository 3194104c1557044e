import type { RunResult, RunStatus } from "../agent/events.js";
import { roundMillionths } from "../format.js";
import type { Usage } from "../model/model-client.js";
import type { PermissionDenialShape, ResultLineShape } from "./line-schemas.js";
import { usageLine } from "./lines.js";

// The closing line, in the shape of the Agent SDK's `SDKResultMessage`.

/** Claude Code's `result.subtype` for each of our statuses (the Agent SDK allows no other value). */
const RESULT_SUBTYPE: Record<RunStatus, ResultLineShape["subtype"]> = {
  completed: "success",
  max_steps: "error_max_turns",
  max_tokens: "error_during_execution",
  max_cost: "error_max_budget_usd",
  timeout: "error_during_execution",
  budget: "error_max_budget_usd",
  loop: "error_during_execution",
  protocol_error: "error_during_execution",
  invalid_output: "error_max_structured_output_retries",
  cancelled: "error_during_execution",
  skipped: "error_during_execution",
  not_run: "error_during_execution",
  error: "error_during_execution",
};

/**
 * The Agent SDK's `TerminalReason` for each status it has one for; `status` keeps agent-run's
 * own reason. A cancellation has none: the SDK's values say whether a tool or the model call was
 * interrupted, which the run's record does not tell.
 */
const TERMINAL_REASON: Record<RunStatus, ResultLineShape["terminal_reason"]> = {
  completed: "completed",
  max_steps: "max_turns",
  max_tokens: "budget_exhausted",
  max_cost: "budget_exhausted",
  timeout: "budget_exhausted",
  budget: "budget_exhausted",
  loop: undefined,
  protocol_error: "malformed_tool_use_exhausted",
  invalid_output: "structured_output_retry_exhausted",
  cancelled: undefined,
  skipped: undefined,
  not_run: undefined,
  error: "api_error",
};

/** The SDK's terminal reason for a status as read back (any string); undefined when none fits. */
export function terminalReasonOf(status: string): ResultLineShape["terminal_reason"] {
  return new Map(Object.entries(TERMINAL_REASON)).get(status);
}

/** What one model of a run used and cost (null when a reply's cost was unknown). */
export type ModelUsage = { model: string; usage: Usage; costUsd: number | null };

/** What the result line needs besides the run's result. */
export type ResultInfo = {
  result: RunResult;
  model: string;
  costUsd: number | null;
  modelUsage?: readonly ModelUsage[];
  /** The limits the SDK's `modelUsage` reports per model. */
  limits: { maxOutputTokens: number; maxContextTokens: number };
  /** Tool calls the command policy refused. */
  permissionDenials: readonly PermissionDenialShape[];
  changedFiles: readonly Record<string, unknown>[];
  workspace: string;
};

/**
 * The closing line, always last, whatever happened. `modelUsage` has one entry per model that
 * replied (a fork onto another model has two); with one or none, the entry is the run's totals.
 * `total_cost_usd` sums the known costs; the models without one are in `unpriced_models`.
 */
export function resultLine(info: ResultInfo): ResultLineShape {
  const { result } = info;
  const models = info.modelUsage ?? [];
  const entries =
    models.length > 1
      ? models
      : [{ model: models[0]?.model ?? info.model, usage: result.usage, costUsd: info.costUsd }];
  const knownCost = entries.reduce((sum, entry) => sum + (entry.costUsd ?? 0), 0);
  const terminalReason = TERMINAL_REASON[result.status];
  return {
    type: "result",
    subtype: RESULT_SUBTYPE[result.status],
    is_error: result.status !== "completed",
    status: result.status,
    duration_ms: result.durationMs,
    duration_api_ms: result.apiDurationMs,
    num_turns: result.steps,
    result: result.finalText,
    total_cost_usd: info.costUsd ?? roundMillionths(knownCost),
    unpriced_models: entries.filter((entry) => entry.costUsd === null).map((entry) => entry.model),
    usage: resultUsage(result.usage),
    modelUsage: Object.fromEntries(
      entries.map((entry) => [
        entry.model,
        {
          inputTokens: entry.usage.inputTokens,
          outputTokens: entry.usage.outputTokens,
          cacheReadInputTokens: entry.usage.cacheReadInputTokens,
          cacheCreationInputTokens: entry.usage.cacheCreationInputTokens,
          webSearchRequests: 0,
          costUSD: entry.costUsd ?? 0,
          contextWindow: info.limits.maxContextTokens,
          maxOutputTokens: info.limits.maxOutputTokens,
        },
      ]),
    ),
    permission_denials: [...info.permissionDenials],
    stop_reason: result.stopReason,
    ...(terminalReason === undefined ? {} : { terminal_reason: terminalReason }),
    ...(result.status === "completed" ? {} : { errors: errorsOf(result) }),
    ...(result.limitExceededByFinalReply === undefined
      ? {}
      : { limit_exceeded_by_final_reply: result.limitExceededByFinalReply }),
    ...(result.structuredOutput === undefined
      ? {}
      : { structured_output: result.structuredOutput }),
    changed_files: info.changedFiles,
    workspace: info.workspace,
  };
}

/** Why a run did not complete, in words; the SDK's error results always carry the list. */
function errorsOf(result: RunResult): string[] {
  return [result.error ?? `the run ended with status ${result.status}`];
}

/**
 * The run's usage as the SDK's `NonNullableUsage`: the four counts agent-run sums, and for the
 * fields it does not track, what holds for its requests: every cache write is a 5-minute one (its
 * `cache_control` sets no TTL), no server tools, no fallback, the standard tier and speed.
 */
export function resultUsage(usage: Usage): ResultLineShape["usage"] {
  return {
    ...usageLine(usage),
    cache_creation: {
      ephemeral_1h_input_tokens: 0,
      ephemeral_5m_input_tokens: usage.cacheCreationInputTokens,
    },
    fallback_credit: null,
    inference_geo: "unknown",
    iterations: [],
    output_tokens_details: { thinking_tokens: 0 },
    server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
    service_tier: "standard",
    speed: "standard",
  };
}
