import { z } from "zod";

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

export const InitLineSchema = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  schema_version: z.number().int(),
  cwd: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  agent_run_version: z.string(),
  task: z.looseObject({ name: z.string(), prompt: z.string(), system: z.string() }),
  ...Common,
});

export const AssistantLineSchema = z.looseObject({
  type: z.literal("assistant"),
  message: z.looseObject({
    role: z.literal("assistant"),
    content: z.array(z.looseObject({ type: z.string() })),
  }),
  parent_tool_use_id: z.null(),
  step: z.number().int().positive(),
  duration_ms: z.number(),
  ...Common,
});

export const UserLineSchema = z.looseObject({
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
  ...Common,
});

export const RetryLineSchema = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_retry"),
  attempt: z.number(),
  max_retries: z.number(),
  retry_delay_ms: z.number().nullable(),
  error_status: z.number().nullable(),
  error: z.string(),
  step: z.number(),
  ...Common,
});

export const ApiErrorLineSchema = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("api_error"),
  error_status: z.number().nullable(),
  error: z.string(),
  step: z.number(),
  ...Common,
});

export const CompactLineSchema = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("compact_boundary"),
  step: z.number(),
  ...Common,
});

export const LimitLineSchema = z.looseObject({
  type: z.literal("limit_reached"),
  limit: z.string(),
  used: z.number(),
  max: z.number(),
  step: z.number(),
  ...Common,
});

export const CheckLineSchema = z.looseObject({
  type: z.literal("check"),
  name: z.string(),
  kind: z.string(),
  passed: z.boolean(),
  message: z.string(),
  output: z.string().nullable(),
  ...Common,
});

export const ResultLineSchema = z.looseObject({
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
  ...Common,
});

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
