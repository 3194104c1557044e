import { z } from "zod";
import { ConfigError } from "../errors.js";
import { compareNames, computeTotals, type Report, type ReportTask } from "./aggregate.js";
import { parseVersionedJson } from "./json-issue.js";
import { REPORT_VERSION } from "./report-json.js";
import { LimitExceededJsonSchema, TaskNameJsonSchema, UsageJsonSchema } from "./run-summary.js";

// Reading `report.json` back (merging shards, comparing reports): apart from writing it, so that a
// run, which only writes one, does not build these schemas.

const count = z.number().int().nonnegative();

const TaskJsonSchema = z
  .looseObject({
    name: TaskNameJsonSchema,
    task_file: z.string(),
    model: z.string(),
    status: z.string().min(1),
    passed: z.boolean(),
    error: z.string().nullable(),
    steps: count,
    usage: UsageJsonSchema,
    total_tokens: count,
    cost_usd: z.number().nonnegative().nullable(),
    duration_ms: z.number().nonnegative(),
    changed_file_count: count,
    check_count: count,
    failed_checks: z.array(
      z.object({
        name: z.string(),
        kind: z.string(),
        line: count,
        message: z.string(),
        output: z.string().nullable(),
      }),
    ),
    limit_exceeded_by_final_reply: LimitExceededJsonSchema.nullable().default(null),
  })
  .transform(
    (task): ReportTask => ({
      name: task.name,
      taskFile: task.task_file,
      model: task.model,
      status: task.status,
      passed: task.passed,
      error: task.error,
      steps: task.steps,
      usage: task.usage,
      totalTokens: task.total_tokens,
      costUsd: task.cost_usd,
      durationMs: task.duration_ms,
      changedFileCount: task.changed_file_count,
      checkCount: task.check_count,
      failedChecks: task.failed_checks,
      limitExceededByFinalReply: task.limit_exceeded_by_final_reply,
    }),
  );

/** The file's tasks are what counts; its totals are recomputed from them (they are derived). */
const ReportJsonSchema = z.looseObject({
  schema_version: z.number().int().positive(),
  tasks: z.array(TaskJsonSchema),
});

/** Reads a `report.json`'s text back into a report; `file` names it in errors (`ConfigError`). */
export function parseReportJson(text: string, file: string): Report {
  const parsed = parseVersionedJson(text, file, REPORT_VERSION, ReportJsonSchema);
  const tasks = [...parsed.tasks].sort((a, b) => compareNames(a.name, b.name));
  const names = tasks.map((task) => task.name);
  const repeated = names.find((name, index) => names[index + 1] === name);
  if (repeated !== undefined) throw new ConfigError(`${file}: task "${repeated}" appears twice`);
  return { tasks, totals: computeTotals(tasks) };
}
