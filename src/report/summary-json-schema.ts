import { z } from "zod";
import { ERROR_KINDS, RUN_STATUSES } from "../agent/events.js";
import { CHECK_KINDS } from "../checks/types.js";
import { TASK_NAME_PATTERN, TASK_NAME_RULE } from "../task/schema.js";
import { PLAN_STATUSES } from "../tools/plan-store.js";
import {
  AttemptJsonSchema,
  CostUsdJsonSchema,
  EarlierAttemptJsonSchema,
  TrialJsonSchema,
} from "../transcript/trials.js";
import { RunFingerprintJsonSchema } from "./fingerprint.js";

// `summary.json` as agent-run writes it: `summaryJson` is typed by this schema, the reader picks
// its fields from it, and `npm run schema` publishes it as schema/summary.schema.json.

/** The version of `summary.json`'s shape; bumped with any change to it. */
export const SUMMARY_VERSION = 1;

const count = z.number().int().nonnegative();

/** Names read back pass the task files' rule: they name folders and are printed in logs. */
export const TaskNameJsonSchema = z.string().regex(TASK_NAME_PATTERN, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a task name (${TASK_NAME_RULE}); the file was edited`,
});

/** `usage` as `summary.json`, `report.json` and the transcript's result line write it. */
export const UsageJsonSchema = z
  .object({
    input_tokens: count,
    output_tokens: count,
    cache_creation_input_tokens: count,
    cache_read_input_tokens: count,
  })
  .describe("Tokens as the API reported them, summed over the run's model calls.");

/** One check's outcome, as `summary.json` and the transcript's check lines write it. */
export const CheckJsonSchema = z.object({
  name: z.string(),
  kind: z
    .enum([...CHECK_KINDS, "git_unchanged"])
    .describe("A declared check's kind, or git_unchanged: the check added when a .git changed."),
  passed: z.boolean(),
  message: z.string().describe("Why it passed or failed, in a sentence."),
  output: z.string().nullable().describe("A run check's output (capped), else null."),
  line: count.describe("The check's line in the task file."),
  duration_ms: z.number().nonnegative(),
});

/** A token or cost limit a completed run's final answer went past (`summary.json`, `report.json`). */
export const LimitExceededJsonSchema = z
  .object({ limit: z.enum(["max_tokens", "max_cost"]), used: z.number(), max: z.number() })
  .describe(
    "A completed run whose final answer went past a token or cost limit: the figures at its end.",
  );

/**
 * The same, read back: any limit name, for a newer agent-run's limits. `report.json` holds it so,
 * as its tasks come from summaries read back.
 */
export const LimitExceededReadSchema = LimitExceededJsonSchema.extend({ limit: z.string().min(1) });

/** The top-level agent's plan as the run ended (`todo_write`), in `summary.json`. */
const PlanJsonSchema = z
  .object({
    items: z.array(
      z.object({
        content: z.string(),
        status: z.enum(PLAN_STATUSES),
      }),
    ),
    completed: count.describe("Items completed."),
    total: count.describe("Items in the plan."),
  })
  .describe("The agent's plan as the run ended (what todo_write last wrote).");

/** A plan's progress, as `report.json` counts it. */
export const PlanProgressJsonSchema = z
  .object({ completed: count, total: count })
  .describe("How much of the agent's plan was completed.");

const FileStatusSchema = z.enum(["added", "modified", "deleted"]);

const ChangedFileJsonSchema = z.object({
  path: z.string().describe("Relative to the workspace, '/'-separated."),
  status: FileStatusSchema,
  mode: z
    .object({ before: z.string(), after: z.string() })
    .optional()
    .describe(
      "Git's modes before and after (100644 → 100755), when a modified file's mode changed.",
    ),
  additions: count,
  deletions: count,
  binary: z.boolean(),
});

/** What an `error` run failed on; null for the other statuses. */
const ErrorKindJsonSchema = z
  .enum(ERROR_KINDS)
  .nullable()
  .describe(
    "For status error: api (the model API failed after its retries: rate limit, overload, 5xx, connection, a broken or malformed stream), workspace (the workspace could not be copied or its starting state recorded) or other. The first two are infrastructure failures, which --retry-errors runs again. Null for the other statuses.",
  );

/** `summary.json`: one task's run. New fields may appear without a new `schema_version`. */
export const SummaryJsonSchema = z
  .object({
    schema_version: z.literal(SUMMARY_VERSION),
    name: TaskNameJsonSchema,
    task_file: z.string().describe("The task file as it was given."),
    status: z.enum(RUN_STATUSES),
    passed: z.boolean().describe("The status is completed and every check passed."),
    error: z.string().nullable().describe("Why the run did not complete; null when it did."),
    error_kind: ErrorKindJsonSchema,
    model: z.string(),
    steps: count.describe("Model calls made."),
    usage: UsageJsonSchema,
    total_tokens: count,
    cost_usd: CostUsdJsonSchema,
    duration_ms: z.number().nonnegative(),
    final_text: z.string().describe("The text of the model's last reply."),
    changed_files: z.array(ChangedFileJsonSchema),
    git_changes: z
      .array(z.object({ path: z.string(), status: FileStatusSchema }))
      .describe("Entries under a .git in the workspace that the run changed."),
    workspace: z.string().describe("Absolute path of the folder the agent worked in."),
    transcript: z.string().describe("The transcript's file name, in the run folder."),
    patch: z.string().nullable().describe("The patch's file name; null when it was not written."),
    origin: z
      .object({
        kind: z.enum(["replay", "fork", "resume"]),
        transcript: z.string(),
        session_id: z.string(),
        steps: count,
      })
      .optional()
      .describe("Runs made by replay or resume only: the recorded run they started from."),
    trial: TrialJsonSchema.optional(),
    attempt: AttemptJsonSchema.optional(),
    earlier_attempts: z
      .array(EarlierAttemptJsonSchema)
      .optional()
      .describe(
        "With attempt: the earlier attempts at this trial, which failed on infrastructure; each is kept in attempts/<n>/ in the run folder.",
      ),
    limit_exceeded_by_final_reply: LimitExceededJsonSchema.optional(),
    plan: PlanJsonSchema.nullable()
      .optional()
      .describe(
        "Tasks that offer todo_write only: the agent's plan as the run ended; null when it wrote none.",
      ),
    structured_output: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "Tasks with output_schema only, when the final reply was valid against it: its JSON object (also in output.json).",
      ),
    fingerprint: RunFingerprintJsonSchema.optional(),
    checks: z.array(CheckJsonSchema),
  })
  .describe("agent-run's summary.json: the outcome of one task's run.");

/** `summary.json`'s content, as the writer builds it. */
export type SummaryJson = z.input<typeof SummaryJsonSchema>;
