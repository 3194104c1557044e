import type { AgentEvent, RunResult, RunStatus } from "../agent/events.js";
import type { Check, CheckResult } from "../checks/types.js";
import type { Usage } from "../model/model-client.js";
import type { Limits } from "../task/schema.js";
import { TRANSCRIPT_VERSION } from "./format-version.js";

/** The resolved task as the init line records it. */
export type InitInfo = {
  agentRunVersion: string;
  model: string;
  system: string;
  tools: readonly string[];
  task: {
    name: string;
    file: string;
    prompt: string;
    system: string | undefined;
    limits: Limits;
    bash: {
      timeoutMs: number;
      env: Readonly<Record<string, string>>;
      allow: readonly string[];
      deny: readonly string[];
      maxOutputChars: number;
      maxRecordedChars: number;
    };
    sandbox: string;
    replies: string | undefined;
    checks: readonly Check[];
  };
  workspace: { source: string; path: string; inPlace: boolean; contentHash: string | null };
  offline: boolean;
  /** Where a replayed, forked or resumed run comes from. */
  origin: RunOrigin | undefined;
};

/** The run a replay, fork or resume started from. */
export type RunOrigin = {
  kind: "replay" | "fork" | "resume";
  transcript: string;
  sessionId: string;
  /** Steps taken from the recorded run. */
  steps: number;
};

/** The first line: Claude Code's `system`/`init` plus our version and the resolved task. */
export function initLine(info: InitInfo): Record<string, unknown> {
  const { task } = info;
  return {
    type: "system",
    subtype: "init",
    schema_version: TRANSCRIPT_VERSION,
    agent_run_version: info.agentRunVersion,
    cwd: info.workspace.path,
    model: info.model,
    tools: info.tools,
    task: {
      name: task.name,
      file: task.file,
      prompt: task.prompt,
      system: info.system,
      extra_system: task.system ?? null,
      model: info.model,
      limits: {
        max_steps: task.limits.maxSteps,
        max_tokens: task.limits.maxTokens,
        max_output_tokens: task.limits.maxOutputTokens,
        timeout_ms: task.limits.timeoutMs,
        max_cost_usd: task.limits.maxCostUsd ?? null,
        max_repeated_calls: task.limits.maxRepeatedCalls,
        max_context_tokens: task.limits.maxContextTokens,
      },
      tools: info.tools,
      bash: {
        timeout_ms: task.bash.timeoutMs,
        env: task.bash.env,
        allow: task.bash.allow,
        deny: task.bash.deny,
        max_output: task.bash.maxOutputChars,
        max_recorded_output: task.bash.maxRecordedChars,
      },
      sandbox: task.sandbox,
      replies: task.replies ?? null,
      checks: task.checks.map(checkJson),
      workspace: {
        source: info.workspace.source,
        path: info.workspace.path,
        in_place: info.workspace.inPlace,
        content_hash: info.workspace.contentHash,
      },
      offline: info.offline,
    },
    ...(info.origin === undefined ? {} : { origin: originLine(info.origin) }),
  };
}

/** The origin as the init line and `summary.json` record it. */
export function originLine(origin: RunOrigin): Record<string, unknown> {
  return {
    kind: origin.kind,
    transcript: origin.transcript,
    session_id: origin.sessionId,
    steps: origin.steps,
  };
}

/** One agent event as a transcript line (shapes of Claude Code's stream-json where they exist). */
export function eventLine(event: AgentEvent): Record<string, unknown> {
  switch (event.type) {
    case "model_reply":
      return {
        type: "assistant",
        message: event.reply.message,
        parent_tool_use_id: null,
        step: event.step,
        duration_ms: event.durationMs,
      };
    case "tool_result":
      return {
        type: "user",
        message: { role: "user", content: [event.block] },
        parent_tool_use_id: null,
        step: event.step,
        tool_name: event.toolName,
        duration_ms: event.durationMs,
        ...(event.recordedContent === undefined ? {} : { recorded_output: event.recordedContent }),
        ...(event.exitCode === undefined ? {} : { exit_code: event.exitCode }),
      };
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

/** A resolved check in the init line's snake_case (its task-file line included). */
export function checkJson(check: Check): Record<string, unknown> {
  switch (check.kind) {
    case "run":
      return {
        kind: check.kind,
        name: check.name,
        line: check.line,
        command: check.command,
        timeout_ms: check.timeoutMs,
      };
    case "changed_files":
      return {
        kind: check.kind,
        name: check.name,
        line: check.line,
        only: check.only ?? null,
        must: check.must ?? null,
        max: check.max ?? null,
      };
    default:
      return { ...check };
  }
}

/** A check's outcome, written after the agent stopped and before the result line (agent-run's own). */
export function checkLine(check: CheckResult): Record<string, unknown> {
  return { type: "check", ...checkResultJson(check) };
}

/** A check's outcome in snake_case, as the transcript and `summary.json` write it. */
export function checkResultJson(check: CheckResult): Record<string, unknown> {
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
const RESULT_SUBTYPE: Record<RunStatus, string> = {
  completed: "success",
  max_steps: "error_max_turns",
  max_tokens: "error_during_execution",
  max_cost: "error_max_budget_usd",
  timeout: "error_during_execution",
  budget: "error_max_budget_usd",
  loop: "error_during_execution",
  cancelled: "error_during_execution",
  skipped: "error_during_execution",
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
  cancelled: "cancelled",
  skipped: "skipped",
  error: "api_error",
};

/** The closing line, always last, whatever happened. */
export function resultLine(args: {
  result: RunResult;
  model: string;
  costUsd: number | null;
  changedFiles: readonly Record<string, unknown>[];
  workspace: string;
}): Record<string, unknown> {
  const { result } = args;
  const usage = usageLine(result.usage);
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
    modelUsage: {
      [args.model]: {
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        cacheReadInputTokens: result.usage.cacheReadInputTokens,
        cacheCreationInputTokens: result.usage.cacheCreationInputTokens,
        costUSD: args.costUsd,
      },
    },
    permission_denials: [],
    stop_reason: result.stopReason,
    terminal_reason: TERMINAL_REASON[result.status],
    ...(result.error === undefined ? {} : { errors: [result.error] }),
    changed_files: args.changedFiles,
    workspace: args.workspace,
  };
}

/** Usage in the API's snake_case shape, as transcript and summary write it. */
export function usageLine(usage: Usage): Record<string, number> {
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
