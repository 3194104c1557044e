import type { AgentEvent } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import type { ApiMessage, ModelErrorCategory, RetryNotice, Usage } from "../model/model-client.js";
import { planLine, taskNotificationLine, taskStartedLine } from "./agent-lines.js";
import type {
  ApiErrorLineShape,
  AssistantLineShape,
  CheckLineShape,
  CompactLineShape,
  LimitLineShape,
  PlanLineShape,
  RetryLineShape,
  TaskNotificationLineShape,
  TaskStartedLineShape,
  UserLineShape,
} from "./line-schemas.js";

// The lines a run writes as it goes; the first line is in `init-line.ts`, the last in
// `result-line.ts`.

/** Any line an agent event becomes. */
type EventLineShape =
  | AssistantLineShape
  | UserLineShape
  | RetryLineShape
  | ApiErrorLineShape
  | CompactLineShape
  | LimitLineShape
  | PlanLineShape
  | TaskStartedLineShape
  | TaskNotificationLineShape;

/**
 * One agent event as a transcript line (shapes of Claude Code's stream-json where they exist), or
 * undefined for `tool_start` (the assistant line before it already holds the call) and for
 * `model_warning` (the SDK's words about the call, which the batch log shows once).
 */
export function eventLine(event: AgentEvent): EventLineShape | undefined {
  const line = bodyLine(event);
  // A subagent's line names the `task` call that started it (Claude Code's `parent_tool_use_id`).
  const parent = event.subagent?.parentToolUseId;
  return line === undefined || parent === undefined
    ? line
    : { ...line, parent_tool_use_id: parent };
}

function bodyLine(event: AgentEvent): EventLineShape | undefined {
  switch (event.type) {
    case "tool_start":
    case "model_warning":
    case "mcp_server_failed":
      return undefined;
    case "model_reply":
      return {
        type: "assistant",
        message: sdkMessage(event.reply.message),
        parent_tool_use_id: null,
        step: event.step,
        duration_ms: event.durationMs,
      };
    case "tool_result":
      return toolResultLine(event);
    case "model_retry":
      return retryLine(event.step, event.notice);
    case "model_error":
      return {
        type: "system",
        subtype: "api_error",
        step: event.step,
        error_status: event.status,
        error: event.message,
      };
    case "context_trimmed":
      return compactLine(event);
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
    case "plan_updated":
      return planLine(event);
    case "subagent_start":
      return taskStartedLine(event);
    case "subagent_end":
      return taskNotificationLine(event);
    default:
      return assertNever(event);
  }
}

/** A retry the client is about to make, as the SDK's `api_retry` line. */
function retryLine(step: number, notice: RetryNotice): RetryLineShape {
  return {
    type: "system",
    subtype: "api_retry",
    step,
    attempt: notice.attempt,
    max_retries: notice.maxRetries,
    retry_delay_ms: notice.delayMs,
    error_status: notice.status,
    error: SDK_ERROR_CATEGORY[notice.category],
    error_message: notice.error,
  };
}

/** A trim of the conversation, as the SDK's `compact_boundary` (an automatic one). */
function compactLine(event: Extract<AgentEvent, { type: "context_trimmed" }>): CompactLineShape {
  return {
    type: "system",
    subtype: "compact_boundary",
    step: event.step,
    compact_metadata: {
      trigger: "auto",
      pre_tokens: event.preTokens,
      post_tokens: event.postTokens,
    },
    removed_tool_results: event.removedResults,
    context_max_tokens: event.maxTokens,
  };
}

/** The Agent SDK's error category (`SDKAssistantMessageError`) for each of ours. */
const SDK_ERROR_CATEGORY: Record<ModelErrorCategory, RetryLineShape["error"]> = {
  authentication: "authentication_failed",
  rate_limit: "rate_limit",
  overloaded: "overloaded",
  server_error: "server_error",
  connection: "unknown",
  not_found: "model_not_found",
  invalid_request: "invalid_request",
  unknown: "unknown",
};

/** The `BetaMessage` fields a message may lack (the API leaves out what is null), as null. */
const MESSAGE_DEFAULTS = {
  container: null,
  context_management: null,
  diagnostics: null,
  stop_details: null,
};

/** The `BetaUsage` fields a reply's usage may lack, as null (the API's "not reported"). */
const REPLY_USAGE_DEFAULTS = {
  cache_creation: null,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
  fallback_credit: null,
  inference_geo: null,
  iterations: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: null,
  speed: null,
};

/**
 * The message as the API sent it, with the fields of the Agent SDK's `BetaMessage` it left out
 * added as null (a text block's `citations` too): nothing the API sent is changed.
 */
export function sdkMessage(message: ApiMessage): AssistantLineShape["message"] {
  return {
    ...withDefaults(message, MESSAGE_DEFAULTS),
    stop_sequence: message.stop_sequence ?? null,
    content: message.content.map((block) =>
      block.type === "text" ? withDefaults(block, { citations: null }) : block,
    ),
    usage: withDefaults(message.usage, REPLY_USAGE_DEFAULTS),
  };
}

/** `value` with each field of `defaults` it does not have. */
function withDefaults<T extends object>(value: T, defaults: Record<string, unknown>): T {
  const missing = Object.entries(defaults).filter(([key]) => !Object.hasOwn(value, key));
  return { ...value, ...Object.fromEntries(missing) };
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
    ...(event.isRefused === true ? { permission_denied: true as const } : {}),
    ...(event.isFromRecording === true ? { from_recording: true as const } : {}),
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
