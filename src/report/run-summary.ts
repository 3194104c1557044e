import { z } from "zod";
import type { Usage } from "../model/model-client.js";
import { TASK_NAME_PATTERN, TASK_NAME_RULE } from "../task/schema.js";
import { parseVersionedJson } from "./json-issue.js";
import { SUMMARY_VERSION } from "./summary.js";

const count = z.number().int().nonnegative();

/** Names read back pass the task files' rule: they name folders and are printed in logs. */
export const TaskNameJsonSchema = z.string().regex(TASK_NAME_PATTERN, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a task name (${TASK_NAME_RULE}); the file was edited`,
});

/** `usage` as `summary.json` and `report.json` write it, read back as a `Usage`. */
export const UsageJsonSchema = z
  .looseObject({
    input_tokens: count,
    output_tokens: count,
    cache_creation_input_tokens: count,
    cache_read_input_tokens: count,
  })
  .transform(
    (usage): Usage => ({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheCreationInputTokens: usage.cache_creation_input_tokens,
      cacheReadInputTokens: usage.cache_read_input_tokens,
    }),
  );

const CheckSchema = z
  .looseObject({
    name: z.string(),
    // A plain string, not the enum: a report still reads runs from a newer agent-run's checks.
    kind: z.string(),
    passed: z.boolean(),
    message: z.string(),
    output: z.string().nullable().default(null),
    line: count,
    duration_ms: z.number().nonnegative(),
  })
  .transform((check) => ({
    name: check.name,
    kind: check.kind,
    passed: check.passed,
    message: check.message,
    output: check.output,
    line: check.line,
    durationMs: check.duration_ms,
  }));

/** `limit_exceeded_by_final_reply`, as `summary.json` and `report.json` write it. */
export const LimitExceededJsonSchema = z
  .looseObject({ limit: z.string().min(1), used: z.number(), max: z.number() })
  .transform(({ limit, used, max }) => ({ limit, used, max }));

/** The figures of a limit a completed run's final answer went past. */
export type LimitExceededJson = z.infer<typeof LimitExceededJsonSchema>;

/**
 * `summary.json` as the report reads it: the fields it needs, extra ones allowed. `status` is any
 * string so that statuses added later (`skipped`, `budget`) still load. Summaries written before
 * checks existed have neither `passed` nor `checks`: they passed when they completed.
 */
const RunSummarySchema = z
  .looseObject({
    schema_version: z.number().int().positive(),
    name: TaskNameJsonSchema,
    task_file: z.string(),
    status: z.string().min(1),
    passed: z.boolean().optional(),
    error: z.string().nullable(),
    model: z.string(),
    steps: count,
    usage: UsageJsonSchema,
    total_tokens: count,
    cost_usd: z.number().nonnegative().nullable(),
    duration_ms: z.number().nonnegative(),
    changed_files: z.array(z.looseObject({ path: z.string() })),
    checks: z.array(CheckSchema).default([]),
    limit_exceeded_by_final_reply: LimitExceededJsonSchema.nullable().default(null),
  })
  .transform((run) => ({
    name: run.name,
    taskFile: run.task_file,
    status: run.status,
    passed: run.passed ?? (run.status === "completed" && run.checks.every((check) => check.passed)),
    error: run.error,
    model: run.model,
    steps: run.steps,
    usage: run.usage,
    totalTokens: run.total_tokens,
    costUsd: run.cost_usd,
    durationMs: run.duration_ms,
    changedFileCount: run.changed_files.length,
    checks: run.checks,
    limitExceededByFinalReply: run.limit_exceeded_by_final_reply,
  }));

/** One check of a run, as `summary.json` recorded it. */
export type RunCheck = z.infer<typeof CheckSchema>;

/** One task's run, read back from its `summary.json`; `folder` is where it was found. */
export type RunSummary = z.infer<typeof RunSummarySchema> & { folder: string };

/** Parses a `summary.json`'s text; `file` names it in errors. Throws `ConfigError` (exit 2). */
export function parseRunSummary(text: string, file: string, folder: string): RunSummary {
  return { ...parseVersionedJson(text, file, SUMMARY_VERSION, RunSummarySchema), folder };
}
