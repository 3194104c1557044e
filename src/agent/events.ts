import type {
  ModelErrorCategory,
  ModelReply,
  RetryNotice,
  SdkWarning,
  ToolResultBlock,
  Usage,
} from "../model/model-client.js";
import type { PlanItem } from "../tools/plan-store.js";

/**
 * Why a run ended; every run ends with exactly one of these. `protocol_error`: the model wrote
 * `MAX_MALFORMED_IN_A_ROW` malformed tool calls in a row (text tool protocol). `invalid_output`:
 * the task's `output_schema` asked for a JSON reply, and the last one allowed was still not valid.
 * `not_run`: a batch task that never started (the batch was cancelled first); `resume OUT` runs it.
 */
export const RUN_STATUSES = [
  "completed",
  "max_steps",
  "max_tokens",
  "max_cost",
  "timeout",
  "budget",
  "loop",
  "protocol_error",
  "invalid_output",
  "cancelled",
  "skipped",
  "not_run",
  "error",
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * What an `error` run failed on. `api`: the model API failed after its retries in a way trying
 * again later may mend (rate limit, overload, 5xx, a lost connection, a broken or malformed
 * stream: the failures the SDKs themselves retry). `workspace`: the workspace could not be copied,
 * or its starting state recorded. `other`: anything else (a refused key, an unknown model, a
 * rejected request, the model's refusal, scripted replies that ran out, agent-run's own problems).
 * The first two are infrastructure failures, which `--retry-errors` runs again.
 */
export const ERROR_KINDS = ["api", "workspace", "other"] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Whether an `error` run failed on infrastructure (its kind, as a summary records it): worth another try. */
export function isInfrastructureError(kind: string | null | undefined): boolean {
  return kind === "api" || kind === "workspace";
}

/** The limits a run can hit; a subset of `RunStatus`. */
export const LIMIT_NAMES = [
  "max_steps",
  "max_tokens",
  "max_cost",
  "timeout",
  "budget",
  "loop",
] as const satisfies readonly RunStatus[];

export type LimitName = (typeof LIMIT_NAMES)[number];

/**
 * A limit that has been reached, with the figures for the transcript. `unit` says which cap of the
 * batch budget it was (`--budget-usd` or `--budget-tokens`); the other limits have one unit each.
 * `depth` is the depth of the agent whose limit it is (0, or absent: the run's own; 1 and more: a
 * subagent's step limit), so a subagent stopped by the run's limit stops its parents too.
 */
export type LimitHit = {
  limit: LimitName;
  used: number;
  max: number;
  unit?: "usd" | "tokens";
  depth?: number;
};

/** The loop's outcome. A limit or a model failure is a status here, never an exception. */
export type RunResult = {
  status: RunStatus;
  /** Model calls made. */
  steps: number;
  usage: Usage;
  /** What the replies cost in USD (see `CostOf`); null when one had no known cost. */
  costUsd: number | null;
  /** Text of the model's last reply (empty when there was none). */
  finalText: string;
  /** The last reply's API stop reason. */
  stopReason: string | null;
  durationMs: number;
  /** Time spent waiting for the model. */
  apiDurationMs: number;
  /** Why the run failed, for `error`, `protocol_error`, `invalid_output`, `timeout` and `cancelled`. */
  error: string | undefined;
  /** A completed run of a task with `output_schema`: the final reply's JSON object, valid against it. */
  structuredOutput?: JsonObject | undefined;
  /** For `error`: what it failed on (see `ErrorKind`); unset means `other`. */
  errorKind?: ErrorKind | undefined;
  /**
   * A `completed` run whose final answer (a reply that ended the turn, so no further call was
   * made) took its tokens or cost past the limit.
   */
  limitExceededByFinalReply?: LimitExceeded | undefined;
  /** The limit that stopped the run, when one did (a subagent's tells its parent whose it was). */
  stoppedBy?: LimitHit | undefined;
};

/** A JSON object, as `JSON.parse` makes it (`__proto__` an own key like any other). */
export type JsonObject = { readonly [key: string]: unknown };

/** A token or cost limit a final reply went past: the figures at the end of the run. */
export type LimitExceeded = { limit: "max_tokens" | "max_cost"; used: number; max: number };

/**
 * Where a subagent's event comes from: the `task` call that started its agent (the transcript's
 * `parent_tool_use_id`), and the step of the top-level agent that call belongs to.
 */
export type SubagentOrigin = { parentToolUseId: string; rootStep: number };

/**
 * What the loop reports as it goes; `run-task.ts` routes these to the transcript and reporters.
 * A subagent's events carry `subagent`; the top-level agent's do not.
 */
export type AgentEvent = AgentEventBody & { subagent?: SubagentOrigin | undefined };

type AgentEventBody =
  | { type: "model_reply"; step: number; reply: ModelReply; durationMs: number }
  | { type: "model_retry"; step: number; notice: RetryNotice }
  /** The SDK warned about the call (a deprecated model): for the log, not the transcript. */
  | { type: "model_warning"; step: number; warning: SdkWarning }
  /** A tool call is about to run; its `tool_result` follows. */
  | { type: "tool_start"; step: number; toolName: string; toolUseId: string; input: unknown }
  | {
      type: "tool_result";
      step: number;
      toolName: string;
      input: unknown;
      block: ToolResultBlock;
      durationMs: number;
      exitCode: number | null | undefined;
      /** A larger copy of the output than the model got, for the transcript (commands). */
      recordedContent?: string | undefined;
      /** The command policy refused the call: it never ran. */
      isRefused?: boolean;
      /** The recorded result of an MCP call, served again by a replay, fork or resume. */
      isFromRecording?: boolean;
      /**
       * The run was cancelled or timed out while the call ran (or before it began), or a limit of
       * the run stopped the subagent a `task` call started: its result is cut short, and a replay
       * runs it again without comparing.
       */
      isInterrupted?: boolean | undefined;
    }
  | {
      type: "limit_reached";
      step: number;
      limit: LimitName;
      used: number;
      max: number;
      /** The budget's cap (see `LimitHit`); not written to the transcript. */
      unit?: "usd" | "tokens";
      /** Whose limit it is (see `LimitHit`): above 0, a subagent's own step limit. */
      depth?: number;
    }
  /** A model call failed for good (after the client's retries); `status` is the HTTP status if any. */
  | {
      type: "model_error";
      step: number;
      status: number | null;
      category: ModelErrorCategory;
      message: string;
    }
  /** Older tool results were elided from the conversation sent to the model (the transcript keeps them). */
  | {
      type: "context_trimmed";
      step: number;
      removedResults: number;
      maxTokens: number;
      /** The conversation's estimated size before and after the trim. */
      preTokens: number;
      postTokens: number;
    }
  /** A message the runner itself sent the model (e.g. "your reply was cut off; continue"). */
  | { type: "runner_message"; step: number; text: string }
  /** The agent's plan after a `todo_write` call (its whole list). */
  | { type: "plan_updated"; step: number; items: readonly PlanItem[] }
  /** A `task` call (at `step`) starts a subagent; its own events carry `subagent`. */
  | {
      type: "subagent_start";
      step: number;
      toolUseId: string;
      description: string;
      prompt: string;
      /** 1 for a child of the top-level agent, 2 for its child, ... */
      depth: number;
      tools: readonly string[];
      maxSteps: number;
    }
  /**
   * An MCP server of the task did not start (the run's, not the loop's: the init line records it,
   * this tells the log). Its tools answer with an error.
   */
  | { type: "mcp_server_failed"; step: 0; name: string; error: string }
  /** The subagent the `task` call at `step` started has ended (whatever way); its result follows. */
  | { type: "subagent_end"; step: number; toolUseId: string; result: RunResult; toolUses: number };
