import type { AgentEvent, RunResult, RunStatus } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import type { Usage } from "../model/model-client.js";
import type {
  ApiErrorLineShape,
  AssistantLineShape,
  CheckLineShape,
  CompactLineShape,
  LimitLineShape,
  ResultLineShape,
  RetryLineShape,
  UserLineShape,
} from "./line-schemas.js";

// The lines a run writes as it goes and at its end; the first line is in `init-line.ts`.

/** Any line an agent event becomes. */
type EventLineShape =
  | AssistantLineShape
  | UserLineShape
  | RetryLineShape
  | ApiErrorLineShape
  | CompactLineShape
  | LimitLineShape;

/**
 * One agent event as a transcript line (shapes of Claude Code's stream-json where they exist), or
 * undefined for `tool_start` (the assistant line before it already holds the call) and for
 * `model_warning` (the SDK's words about the call, which the batch log shows once).
 */
export function eventLine(event: AgentEvent): EventLineShape | undefined {
  switch (event.type) {
    case "tool_start":
    case "model_warning":
      return undefined;
    case "model_reply":
      return {
        type: "assistant",
        message: event.reply.message,
        parent_tool_use_id: null,
        step: event.step,
        duration_ms: event.durationMs,
      };
    case "tool_result":
      return toolResultLine(event);
    case "model_retry":
      return {
        type: "system",
        subtype: "api_retry",
        step: event.step,
        attempt: event.notice.attempt,
        max_retries: event.notice.maxRetries,
        retry_delay_ms: event.notice.delayMs,
        error_status: event.notice.status,
        error: event.notice.error,
      };
    case "model_error":
      return {
        type: "system",
        subtype: "api_error",
        step: event.step,
        error_status: event.status,
        error: event.message,
      };
    case "context_trimmed":
      return {
        type: "system",
        subtype: "compact_boundary",
        step: event.step,
        removed_tool_results: event.removedResults,
        context_max_tokens: event.maxTokens,
      };
    case "runner_message":
      return {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: event.text }] },
        parent_tool_use_id: null,
        step: event.step,
      };
    case "limit_reached":
      return {
        type: "limit_reached",
        step: event.step,
        limit: event.limit,
        used: event.used,
        max: event.max,
      };
    default:
      return assertNever(event);
  }
}

function toolResultLine(event: Extract<AgentEvent, { type: "tool_result" }>): UserLineShape {
  return {
    type: "user",
    message: { role: "user", content: [event.block] },
    parent_tool_use_id: null,
    step: event.step,
    tool_name: event.toolName,
    duration_ms: event.durationMs,
    ...(event.recordedContent === undefined ? {} : { recorded_output: event.recordedContent }),
    ...(event.exitCode === undefined ? {} : { exit_code: event.exitCode }),
    ...(event.isInterrupted === true ? { interrupted: true } : {}),
  };
}
/** A check's outcome, written after the agent stopped and before the result line (agent-run's own). */
export function checkLine(check: CheckResult): CheckLineShape {
  return { type: "check", ...checkResultJson(check) };
}

/** A check's outcome in snake_case, as the transcript and `summary.json` write it. */
export function checkResultJson(check: CheckResult) {
  return {
    name: check.name,
    kind: check.kind,
    passed: check.passed,
    message: check.message,
    output: check.output,
    line: check.line,
    duration_ms: check.durationMs,
  };
}

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
  cancelled: "error_during_execution",
  skipped: "error_during_execution",
  not_run: "error_during_execution",
  error: "error_during_execution",
};

const TERMINAL_REASON: Record<RunStatus, string> = {
  completed: "completed",
  max_steps: "max_turns",
  max_tokens: "budget_exhausted",
  max_cost: "budget_exhausted",
  timeout: "timeout",
  budget: "batch_budget_exhausted",
  loop: "repeated_tool_call",
  protocol_error: "malformed_tool_calls",
  cancelled: "cancelled",
  skipped: "skipped",
  not_run: "not_run",
  error: "api_error",
};

/** What one model of a run used and cost (null when a reply's cost was unknown). */
export type ModelUsage = { model: string; usage: Usage; costUsd: number | null };

/**
 * The closing line, always last, whatever happened. `modelUsage` has one entry per model that
 * replied (a fork onto another model has two); with one or none, the entry is the run's totals.
 */
export function resultLine(args: {
  result: RunResult;
  model: string;
  costUsd: number | null;
  modelUsage?: readonly ModelUsage[];
  changedFiles: readonly Record<string, unknown>[];
  workspace: string;
}): ResultLineShape {
  const { result } = args;
  const usage = usageLine(result.usage);
  const models = args.modelUsage ?? [];
  const entries =
    models.length > 1
      ? models
      : [{ model: models[0]?.model ?? args.model, usage: result.usage, costUsd: args.costUsd }];
  return {
    type: "result",
    subtype: RESULT_SUBTYPE[result.status],
    is_error: result.status !== "completed",
    status: result.status,
    duration_ms: result.durationMs,
    duration_api_ms: result.apiDurationMs,
    num_turns: result.steps,
    result: result.finalText,
    total_cost_usd: args.costUsd,
    usage,
    modelUsage: Object.fromEntries(
      entries.map((entry) => [
        entry.model,
        {
          inputTokens: entry.usage.inputTokens,
          outputTokens: entry.usage.outputTokens,
          cacheReadInputTokens: entry.usage.cacheReadInputTokens,
          cacheCreationInputTokens: entry.usage.cacheCreationInputTokens,
          costUSD: entry.costUsd,
        },
      ]),
    ),
    permission_denials: [],
    stop_reason: result.stopReason,
    terminal_reason: TERMINAL_REASON[result.status],
    ...(result.error === undefined ? {} : { errors: [result.error] }),
    ...(result.limitExceededByFinalReply === undefined
      ? {}
      : { limit_exceeded_by_final_reply: result.limitExceededByFinalReply }),
    changed_files: args.changedFiles,
    workspace: args.workspace,
  };
}

/** Usage in the API's snake_case shape, as transcript and summary write it. */
export function usageLine(usage: Usage) {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
    cache_read_input_tokens: usage.cacheReadInputTokens,
  };
}

function assertNever(value: never): never {
  throw new Error(`unhandled event ${JSON.stringify(value)}`);
}
