import { z } from "zod";
import {
  CostUsdJsonSchema,
  LimitExceededReadSchema,
  PlanProgressJsonSchema,
  TaskNameJsonSchema,
  UsageJsonSchema,
} from "./summary-json-schema.js";

// `report.json` as agent-run writes it: `reportJson` is typed by this schema, the reader extends
// its task entries, and `npm run schema` publishes it as schema/report.schema.json.

/** The version of `report.json`'s shape; bumped with any change to it. */
export const REPORT_VERSION = 1;

const count = z.number().int().nonnegative();

/** One task of a report. `status` is any status a summary held, this version's or a newer one's. */
export const ReportTaskJsonSchema = z.object({
  name: TaskNameJsonSchema,
  task_file: z.string(),
  model: z.string(),
  status: z.string().min(1),
  passed: z.boolean(),
  error: z.string().nullable(),
  steps: count,
  usage: UsageJsonSchema,
  total_tokens: count,
  cost_usd: CostUsdJsonSchema,
  duration_ms: z.number().nonnegative(),
  changed_file_count: count,
  check_count: count,
  failed_checks: z.array(
    z.object({
      name: z.string(),
      kind: z.string(),
      line: count.describe("The check's line in the task file."),
      message: z.string(),
      output: z.string().nullable(),
    }),
  ),
  limit_exceeded_by_final_reply: LimitExceededReadSchema.optional(),
  plan: PlanProgressJsonSchema.nullable()
    .optional()
    .describe(
      "Tasks that offer todo_write only: how much of the agent's plan was completed; null when it wrote none.",
    ),
});

const TotalsJsonSchema = z
  .object({
    tasks: count,
    passed: count,
    failed: count,
    pass_rate: z.number().min(0).max(1),
    statuses: z.record(z.string(), count).describe("How many tasks ended with each status."),
    steps: count,
    usage: UsageJsonSchema,
    total_tokens: count,
    cost_usd: z.number().nonnegative().describe("The known costs summed."),
    unpriced_tasks: count.describe("Tasks whose model has no known price (not in cost_usd)."),
    duration_ms: z.number().nonnegative().describe("The tasks' durations summed."),
    changed_file_count: count,
    check_count: count,
    failed_check_count: count,
  })
  .describe("Computed from the tasks alone.");

/** `report.json`: a report over runs, sorted by task name, without timestamps or paths. */
export const ReportJsonSchema = z
  .object({
    schema_version: z.literal(REPORT_VERSION),
    tasks: z.array(ReportTaskJsonSchema),
    totals: TotalsJsonSchema,
  })
  .describe("agent-run's report.json: a report over the runs of one or more batches.");

/** `report.json`'s content, as the writer builds it. */
export type ReportJson = z.input<typeof ReportJsonSchema>;
