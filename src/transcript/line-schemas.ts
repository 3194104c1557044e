import { z } from "zod";
import { RUN_STATUSES } from "../agent/events.js";
import {
  PlanLineBody,
  TaskNotificationLineBody,
  TaskStartedLineBody,
} from "./agent-line-schemas.js";
import { StepSchema } from "./step-schema.js";
import { AttemptJsonSchema, EarlierAttemptJsonSchema, TrialJsonSchema } from "./trials.js";

// The one vocabulary of transcript lines: the reader validates each line with these schemas, and
// the writer's line builders (`lines.ts`) are typed by them, so the two cannot drift apart.

/**
 * The transcript format's version. A change to any line's shape bumps it and adds a migration in
 * `reader.ts`; readers refuse newer versions.
 */
export const TRANSCRIPT_VERSION = 3;

const UsageLineSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

/**
 * A run's usage as the result line writes it: the Agent SDK's `NonNullableUsage` (the Messages
 * API's usage object, every field filled in; see docs/transcript.md for the defaults).
 */
const ResultUsageSchema = UsageLineSchema.extend({
  cache_creation: z.looseObject({
    ephemeral_1h_input_tokens: z.number(),
    ephemeral_5m_input_tokens: z.number(),
  }),
  fallback_credit: z.null(),
  inference_geo: z.string(),
  iterations: z.array(z.looseObject({})),
  output_tokens_details: z.looseObject({ thinking_tokens: z.number() }),
  server_tool_use: z.looseObject({
    web_fetch_requests: z.number(),
    web_search_requests: z.number(),
  }),
  service_tier: z.enum(["standard", "priority", "batch"]),
  speed: z.enum(["standard", "fast"]),
});

/** One model's share of a run: the Agent SDK's `ModelUsage`. */
const ModelUsageSchema = z.looseObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});

/** The Agent SDK's error categories (`SDKAssistantMessageError`) that agent-run's failures map to. */
const SDK_ERROR_CATEGORIES = [
  "authentication_failed",
  "rate_limit",
  "overloaded",
  "invalid_request",
  "model_not_found",
  "server_error",
  "unknown",
] as const;

/** The Agent SDK's `TerminalReason` values that agent-run's statuses map to. */
const SDK_TERMINAL_REASONS = [
  "completed",
  "max_turns",
  "budget_exhausted",
  "malformed_tool_use_exhausted",
  "structured_output_retry_exhausted",
  "api_error",
] as const;

/** Fields every line carries. */
const Common = {
  session_id: z.string(),
  uuid: z.string(),
  at: z.string(),
};

const InitLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  schema_version: z.number().int(),
  cwd: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  agent_run_version: z.string(),
  /** The Agent SDK's init fields (`SDKSystemMessage`), with agent-run's values. */
  claude_code_version: z.string(),
  apiKeySource: z.enum(["ANTHROPIC_API_KEY", "user", "none"]),
  permissionMode: z.literal("dontAsk"),
  /** Claude Code's `McpServerStatus` entries; agent-run's carry each server's tools. */
  mcp_servers: z.array(
    z.looseObject({
      name: z.string(),
      status: z.string(),
      error: z.string().optional(),
      tools: z.array(z.looseObject({ name: z.string() })).optional(),
    }),
  ),
  slash_commands: z.array(z.string()),
  output_style: z.string(),
  skills: z.array(z.string()),
  plugins: z.array(z.looseObject({ name: z.string(), path: z.string() })),
  task: z.looseObject({ name: z.string(), prompt: z.string(), system: z.string() }),
  trial: TrialJsonSchema.optional(),
  attempt: AttemptJsonSchema.optional(),
  earlier_attempts: z.array(EarlierAttemptJsonSchema).optional(),
});

const AssistantLineBody = z.looseObject({
  type: z.literal("assistant"),
  /** The Messages API's message (the SDK's `BetaMessage`). */
  message: z.looseObject({
    id: z.string(),
    type: z.literal("message"),
    role: z.literal("assistant"),
    model: z.string(),
    content: z.array(z.looseObject({ type: z.string() })),
    stop_reason: z.string().nullable(),
    stop_sequence: z.string().nullable(),
    usage: z.looseObject({}),
  }),
  /** The `task` call whose subagent wrote the reply; null for the top-level agent. */
  parent_tool_use_id: z.string().nullable(),
  step: StepSchema,
  duration_ms: z.number(),
});

const UserLineBody = z.looseObject({
  type: z.literal("user"),
  message: z.looseObject({
    role: z.literal("user"),
    content: z.array(z.looseObject({ type: z.string() })),
  }),
  parent_tool_use_id: z.string().nullable(),
  step: StepSchema,
  /** Present on tool results; absent on a text message the runner sent (a cut-off notice). */
  tool_name: z.string().optional(),
  duration_ms: z.number().optional(),
  /** The call never ran: the run ended first. Its result says why; replay does not read it. */
  not_run: z.literal(true).optional(),
  /** The command policy refused the call (also listed in the result's `permission_denials`). */
  permission_denied: z.literal(true).optional(),
  /** A replay, fork or resume served the recorded result of this MCP call; no server ran it. */
  from_recording: z.literal(true).optional(),
});

const RetryLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number(),
  error_status: z.number().nullable(),
  /** The SDK's category of the failure; agent-run's words are in `error_message`. */
  error: z.enum(SDK_ERROR_CATEGORIES),
  error_message: z.string(),
  step: z.number(),
  parent_tool_use_id: z.string().optional(),
});

const ApiErrorLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_error"),
  error_status: z.number().nullable(),
  error: z.string(),
  step: z.number(),
  parent_tool_use_id: z.string().optional(),
});

const CompactLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  compact_metadata: z.looseObject({
    trigger: z.enum(["manual", "auto"]),
    pre_tokens: z.number(),
    post_tokens: z.number().optional(),
  }),
  step: z.number(),
  parent_tool_use_id: z.string().optional(),
});

const LimitLineBody = z.looseObject({
  type: z.literal("limit_reached"),
  limit: z.string(),
  used: z.number(),
  max: z.number(),
  step: z.number(),
  parent_tool_use_id: z.string().optional(),
});

const CheckLineBody = z.looseObject({
  type: z.literal("check"),
  name: z.string(),
  kind: z.string(),
  passed: z.boolean(),
  message: z.string(),
  output: z.string().nullable(),
});

const ResultLineBody = z.looseObject({
  type: z.literal("result"),
  subtype: z.enum([
    "success",
    "error_max_turns",
    "error_during_execution",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
  ]),
  is_error: z.boolean(),
  status: z.enum(RUN_STATUSES),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number(),
  result: z.string(),
  /** The known costs summed; the models without a price are in `unpriced_models`. */
  total_cost_usd: z.number(),
  unpriced_models: z.array(z.string()),
  usage: ResultUsageSchema,
  modelUsage: z.record(z.string(), ModelUsageSchema),
  permission_denials: z.array(
    z.looseObject({
      tool_name: z.string(),
      tool_use_id: z.string(),
      tool_input: z.looseObject({}),
    }),
  ),
  stop_reason: z.string().nullable(),
  terminal_reason: z.enum(SDK_TERMINAL_REASONS).optional(),
  /** Why the run did not complete; the SDK requires it on every error subtype. */
  errors: z.array(z.string()).optional(),
  /** A completed run whose final answer went past a token or cost limit (agent-run's own). */
  limit_exceeded_by_final_reply: z
    .object({ limit: z.enum(["max_tokens", "max_cost"]), used: z.number(), max: z.number() })
    .optional(),
  /** A task with `output_schema`, completed: the final reply's JSON object (the SDK's field). */
  structured_output: z.record(z.string(), z.unknown()).optional(),
});

/** Each kind of line as read back: its body and the fields every line carries. */
export const InitLineSchema = InitLineBody.extend(Common);
export const AssistantLineSchema = AssistantLineBody.extend(Common);
export const UserLineSchema = UserLineBody.extend(Common);
export const RetryLineSchema = RetryLineBody.extend(Common);
export const ApiErrorLineSchema = ApiErrorLineBody.extend(Common);
export const CompactLineSchema = CompactLineBody.extend(Common);
export const LimitLineSchema = LimitLineBody.extend(Common);
export const CheckLineSchema = CheckLineBody.extend(Common);
export const PlanLineSchema = PlanLineBody.extend(Common);
export const TaskStartedLineSchema = TaskStartedLineBody.extend(Common);
export const TaskNotificationLineSchema = TaskNotificationLineBody.extend(Common);
export const ResultLineSchema = ResultLineBody.extend(Common);

/** Any transcript line, as read back. */
export const TranscriptLineSchema = z.union([
  InitLineSchema,
  AssistantLineSchema,
  UserLineSchema,
  RetryLineSchema,
  ApiErrorLineSchema,
  CompactLineSchema,
  LimitLineSchema,
  CheckLineSchema,
  PlanLineSchema,
  TaskStartedLineSchema,
  TaskNotificationLineSchema,
  ResultLineSchema,
]);

export type InitLine = z.infer<typeof InitLineSchema>;
export type ResultLine = z.infer<typeof ResultLineSchema>;
export type TranscriptLine = z.infer<typeof TranscriptLineSchema>;

/** A line as the writer builds it: what the schema reads, without the fields every line gets. */
type Built<S extends z.ZodType> = z.input<S>;

export type InitLineShape = Built<typeof InitLineBody>;
export type AssistantLineShape = Built<typeof AssistantLineBody>;
export type UserLineShape = Built<typeof UserLineBody>;
export type PermissionDenialShape = ResultLineShape["permission_denials"][number];
export type RetryLineShape = Built<typeof RetryLineBody>;
export type ApiErrorLineShape = Built<typeof ApiErrorLineBody>;
export type CompactLineShape = Built<typeof CompactLineBody>;
export type LimitLineShape = Built<typeof LimitLineBody>;
export type CheckLineShape = Built<typeof CheckLineBody>;
export type PlanLineShape = Built<typeof PlanLineBody>;
export type TaskStartedLineShape = Built<typeof TaskStartedLineBody>;
export type TaskNotificationLineShape = Built<typeof TaskNotificationLineBody>;
export type ResultLineShape = Built<typeof ResultLineBody>;
