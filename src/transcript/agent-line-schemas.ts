import { z } from "zod";
import { RUN_STATUSES } from "../agent/events.js";
import { PLAN_STATUSES } from "../tools/plan-store.js";
import { StepSchema } from "./step-schema.js";

// The lines of plans and subagents (see line-schemas.ts, which adds the fields every line has).

/** Where a plan item stands, as `todo_write` takes it. */
const PlanItemSchema = z.object({
  content: z.string(),
  status: z.enum(PLAN_STATUSES),
});

/** The agent's plan after a `todo_write` call (agent-run's own line). */
export const PlanLineBody = z.looseObject({
  type: z.literal("plan"),
  step: StepSchema,
  parent_tool_use_id: z.string().nullable(),
  items: z.array(PlanItemSchema),
  completed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});

/** A `task` call starts a subagent: the Agent SDK's `SDKTaskStartedMessage`. */
export const TaskStartedLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("task_started"),
  task_id: z.string(),
  tool_use_id: z.string(),
  description: z.string(),
  prompt: z.string(),
  task_type: z.literal("local_agent"),
  spawn_depth: z.number().int().positive(),
  step: StepSchema,
  parent_tool_use_id: z.string().nullable(),
  tools: z.array(z.string()),
  max_steps: z.number().int().positive(),
});

/** A subagent ended: the Agent SDK's `SDKTaskNotificationMessage`. */
export const TaskNotificationLineBody = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("task_notification"),
  task_id: z.string(),
  tool_use_id: z.string(),
  status: z.enum(["completed", "failed", "stopped"]),
  output_file: z.string(),
  summary: z.string(),
  usage: z.looseObject({
    total_tokens: z.number(),
    tool_uses: z.number(),
    duration_ms: z.number(),
  }),
  step: StepSchema,
  parent_tool_use_id: z.string().nullable(),
  /** agent-run's status of the subagent's run, and what it used and cost. */
  run_status: z.enum(RUN_STATUSES),
  num_turns: z.number().int().nonnegative(),
  cost_usd: z.number().nullable(),
});
