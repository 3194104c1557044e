import { z } from "zod";
import type { Usage } from "../model/model-client.js";
import {
  AttemptJsonSchema,
  EarlierAttemptJsonSchema,
  earlierAttemptOfJson,
  TrialJsonSchema,
} from "../transcript/trials.js";
import { RunFingerprintJsonSchema } from "./fingerprint.js";
import { parseVersionedJson } from "./json-issue.js";
import {
  CheckJsonSchema,
  LimitExceededReadSchema,
  PlanProgressJsonSchema,
  SUMMARY_VERSION,
  SummaryJsonSchema,
  UsageJsonSchema,
} from "./summary-json-schema.js";

/** `usage` read back as a `Usage`. */
export const UsageReadSchema = UsageJsonSchema.transform(
  (usage): Usage => ({
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens,
    cacheReadInputTokens: usage.cache_read_input_tokens,
  }),
);

/** An earlier attempt at a trial, as `summary.json` and `report.json` record it. */
export const EarlierAttemptReadSchema = EarlierAttemptJsonSchema.transform(earlierAttemptOfJson);

/** A plain string `kind`, not the enum: a report still reads runs from a newer agent-run's checks. */
const CheckSchema = CheckJsonSchema.extend({
  kind: z.string(),
  output: z.string().nullable().default(null),
}).transform((check) => ({
  name: check.name,
  kind: check.kind,
  passed: check.passed,
  message: check.message,
  output: check.output,
  line: check.line,
  durationMs: check.duration_ms,
}));

/**
 * A changed file as read back: its path, and what the viewer shows of it when recorded (a newer
 * agent-run's statuses still load).
 */
const ChangedFileReadSchema = z
  .looseObject({
    path: z.string(),
    status: z.string().optional(),
    binary: z.boolean().optional(),
    additions: z.number().optional(),
    deletions: z.number().optional(),
    mode: z.object({ before: z.string(), after: z.string() }).optional(),
  })
  .transform((file) => ({
    path: file.path,
    status: file.status ?? "modified",
    binary: file.binary ?? false,
    additions: file.additions ?? 0,
    deletions: file.deletions ?? 0,
    mode: file.mode ?? null,
  }));

/** A changed file of a run, as `summary.json` recorded it. */
export type RunChangedFile = z.infer<typeof ChangedFileReadSchema>;

/** The figures of a limit a completed run's final answer went past. */
export type LimitExceededJson = z.infer<typeof LimitExceededReadSchema>;

/**
 * `summary.json` as the report reads it: the fields it needs, picked from the written shape, extra
 * ones ignored. `status` is any string so that statuses added later still load; `changed_files`
 * only needs the count. Summaries written before checks existed have neither `passed` nor
 * `checks`: they passed when they completed.
 */
const RunSummarySchema = SummaryJsonSchema.pick({
  name: true,
  task_file: true,
  error: true,
  model: true,
  steps: true,
  total_tokens: true,
  cost_usd: true,
  duration_ms: true,
})
  .extend({
    status: z.string().min(1),
    passed: z.boolean().optional(),
    usage: UsageReadSchema,
    changed_files: z.array(ChangedFileReadSchema),
    checks: z.array(CheckSchema).default([]),
    limit_exceeded_by_final_reply: LimitExceededReadSchema.nullable().default(null),
    // Only the progress: a report shows how much of the plan was done.
    plan: PlanProgressJsonSchema.nullable().optional(),
    // Any kind, for a newer agent-run's; summaries from before kinds existed have none.
    error_kind: z.string().min(1).nullable().default(null),
    trial: TrialJsonSchema.optional(),
    attempt: AttemptJsonSchema.default(1),
    earlier_attempts: z.array(EarlierAttemptReadSchema).default([]),
    // Summaries from before fingerprints: none, and a comparison says so.
    fingerprint: RunFingerprintJsonSchema.nullable().default(null),
  })
  .transform((run) => ({
    name: run.name,
    taskFile: run.task_file,
    status: run.status,
    passed: run.passed ?? (run.status === "completed" && run.checks.every((check) => check.passed)),
    error: run.error,
    errorKind: run.error_kind,
    model: run.model,
    steps: run.steps,
    usage: run.usage,
    totalTokens: run.total_tokens,
    costUsd: run.cost_usd,
    durationMs: run.duration_ms,
    changedFileCount: run.changed_files.length,
    changedFiles: run.changed_files,
    checks: run.checks,
    limitExceededByFinalReply: run.limit_exceeded_by_final_reply,
    // Absent: no plan tool; null: the tool, but no plan written.
    plan: run.plan,
    trial: run.trial?.index,
    attempt: run.attempt,
    earlierAttempts: run.earlier_attempts,
    fingerprint: run.fingerprint,
  }));

/** One check of a run, as `summary.json` recorded it. */
export type RunCheck = z.infer<typeof CheckSchema>;

/** One task's run, read back from its `summary.json`; `folder` is where it was found. */
export type RunSummary = z.infer<typeof RunSummarySchema> & { folder: string };

/** Parses a `summary.json`'s text; `file` names it in errors. Throws `ConfigError` (exit 2). */
export function parseRunSummary(text: string, file: string, folder: string): RunSummary {
  return { ...parseVersionedJson(text, file, SUMMARY_VERSION, RunSummarySchema), folder };
}
