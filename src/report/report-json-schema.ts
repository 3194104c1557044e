import { z } from "zod";
import { MAX_TRIALS } from "../task/schema-fields.js";
import { CostUsdJsonSchema, EarlierAttemptJsonSchema } from "../transcript/trials.js";
import { TaskFingerprintJsonSchema } from "./fingerprint.js";
import {
  LimitExceededReadSchema,
  PlanProgressJsonSchema,
  TaskNameJsonSchema,
  UsageJsonSchema,
} from "./summary-json-schema.js";

// `report.json` as agent-run writes it: `reportJson` is typed by this schema, the reader extends
// its task entries, and `npm run schema` publishes it as schema/report.schema.json.

/** The version of `report.json`'s shape; bumped with any change to it (2: a task holds its trials' runs). */
export const REPORT_VERSION = 2;

const count = z.number().int().nonnegative();
const rate = z.number().min(0).max(1);

/** One run of a task: the attempt that counts for one of its trials. `status` is any a summary held. */
export const ReportRunJsonSchema = z.object({
  trial: count.min(1).max(MAX_TRIALS).describe("Which trial of the task this run is, from 1."),
  attempts: count
    .min(1)
    .describe("Attempts made at the trial: 1, unless earlier ones failed on infrastructure."),
  model: z.string(),
  status: z.string().min(1),
  passed: z.boolean(),
  error: z.string().nullable(),
  error_kind: z
    .string()
    .nullable()
    .describe("For status error: api, workspace or other (see summary.json); else null."),
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
  earlier_attempts: z
    .array(EarlierAttemptJsonSchema)
    .optional()
    .describe("With attempts above 1: the earlier attempts, which failed on infrastructure."),
});

/** One task of a report: its runs, one per trial, and how many passed. */
export const ReportTaskJsonSchema = z.object({
  name: TaskNameJsonSchema,
  task_file: z.string(),
  trials: count.min(1).max(MAX_TRIALS).describe("Trials run (each counted by its last attempt)."),
  passed_trials: count,
  pass_rate: rate.describe("passed_trials / trials."),
  flaky: z.boolean().describe("Some trials passed and some did not."),
  passed: z.boolean().describe("Every trial passed."),
  runs: z.array(ReportRunJsonSchema).min(1).describe("One per trial, by trial."),
  fingerprint: TaskFingerprintJsonSchema,
});

/** pass@k or pass^k by k ("1", "2", …): from 1 to the fewest trials of any task. */
const EstimatesJsonSchema = z.record(z.string().regex(/^[1-9]\d*$/), rate);

const TotalsJsonSchema = z
  .object({
    tasks: count,
    passed: count.describe("Tasks whose every trial passed."),
    failed: count,
    pass_rate: rate.describe("passed / tasks."),
    trials: count,
    passed_trials: count,
    flaky_tasks: count,
    pass_at_k: EstimatesJsonSchema.describe(
      'Per k, the mean over tasks of 1 - C(n-c, k) / C(n, k) (n trials, c passed): the chance that at least one of k trials passes. pass_at_k["1"] is the mean pass@1.',
    ),
    pass_hat_k: EstimatesJsonSchema.describe(
      "Per k, the mean over tasks of C(c, k) / C(n, k): the chance that all of k trials pass.",
    ),
    statuses: z.record(z.string(), count).describe("How many trials ended with each status."),
    steps: count,
    usage: UsageJsonSchema,
    total_tokens: count,
    cost_usd: z.number().nonnegative().describe("The known costs summed."),
    unpriced_trials: count.describe("Trials whose model has no known price (not in cost_usd)."),
    duration_ms: z.number().nonnegative().describe("The trials' durations summed."),
    changed_file_count: count,
    check_count: count,
    failed_check_count: count,
    retries: z
      .object({ attempts: count, total_tokens: count, cost_usd: z.number().nonnegative() })
      .describe(
        "The earlier attempts run again after infrastructure failures (--retry-errors), and their spend (not in the figures above).",
      ),
  })
  .describe("Computed from the tasks alone; trials are counted by their last attempt.");

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
