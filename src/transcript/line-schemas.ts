import { z } from "zod";

// The one vocabulary of transcript lines: the reader validates each line with these schemas, and
// the writer's line builders (`lines.ts`) are typed by them, so the two cannot drift apart.

/**
 * The transcript format's version. A change to any line's shape bumps it and adds a migration in
 * `reader.ts`; readers refuse newer versions.
 */
export const TRANSCRIPT_VERSION = 1;

const UsageLineSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

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
  task: z.looseObject({ name: z.string(), prompt: z.string(), system: z.string() }),
});

const AssistantLineBody = z.looseObject({
  type: z.literal("assistant"),
  message: z.looseObject({
    role: z.literal("assistant"),
    content: z.array(z.looseObject({ type: z.string() })),
  }),
  parent_tool_use_id: z.null(),
  step: z.number().int().positive(),
  duration_ms: z.number(),
});

const UserLineBody = z.looseObject({
  type: z.literal("user"),
  message: z.looseObject({
    role: z.literal("user"),
    content: z.array(z.looseObject({ type: z.string() })),
  }),
  parent_tool_use_id: z.null(),
  step: z.number().int().positive(),
  /** Present on tool results; absent on a text message the runner sent (a cut-off notice). */
  tool_name: z.string().optional(),
  duration_ms: z.number().optional(),
});

const RetryLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number().nullable(),
  error_status: z.number().nullable(),
  error: z.string(),
  step: z.number(),
});

const ApiErrorLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_error"),
  error_status: z.number().nullable(),
  error: z.string(),
  step: z.number(),
});

const CompactLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  step: z.number(),
});

const LimitLineBody = z.looseObject({
  type: z.literal("limit_reached"),
  limit: z.string(),
  used: z.number(),
  max: z.number(),
  step: z.number(),
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
  subtype: z.enum(["success", "error_max_turns", "error_during_execution", "error_max_budget_usd"]),
  is_error: z.boolean(),
  status: z.string(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number(),
  result: z.string(),
  total_cost_usd: z.number().nullable(),
  usage: UsageLineSchema,
  /** A completed run whose final answer went past a token or cost limit (agent-run's own). */
  limit_exceeded_by_final_reply: z
    .object({ limit: z.enum(["max_tokens", "max_cost"]), used: z.number(), max: z.number() })
    .optional(),
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
export type RetryLineShape = Built<typeof RetryLineBody>;
export type ApiErrorLineShape = Built<typeof ApiErrorLineBody>;
export type CompactLineShape = Built<typeof CompactLineBody>;
export type LimitLineShape = Built<typeof LimitLineBody>;
export type CheckLineShape = Built<typeof CheckLineBody>;
export type ResultLineShape = Built<typeof ResultLineBody>;
