import { z } from "zod";
import { ConfigError } from "../errors.js";
import { compareNames, computeTotals, type Report, type ReportTask } from "./aggregate.js";
import { parseVersionedJson } from "./json-issue.js";
import { REPORT_VERSION, ReportTaskJsonSchema } from "./report-json-schema.js";
import { UsageReadSchema } from "./run-summary.js";
import { LimitExceededReadSchema } from "./summary-json-schema.js";

// Reading `report.json` back (merging shards, comparing reports): apart from writing it, so that a
// run, which only writes one, does not build these schemas.

const TaskJsonSchema = ReportTaskJsonSchema.extend({
  usage: UsageReadSchema,
  limit_exceeded_by_final_reply: LimitExceededReadSchema.nullable().default(null),
}).transform(
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
    plan: task.plan,
  }),
);

/** The file's tasks are what counts; its totals are recomputed from them (they are derived). */
const ReadReportSchema = z.looseObject({
  schema_version: z.number().int().positive(),
  tasks: z.array(TaskJsonSchema),
});

/** Reads a `report.json`'s text back into a report; `file` names it in errors (`ConfigError`). */
export function parseReportJson(text: string, file: string): Report {
  const parsed = parseVersionedJson(text, file, REPORT_VERSION, ReadReportSchema);
  const tasks = [...parsed.tasks].sort((a, b) => compareNames(a.name, b.name));
  const names = tasks.map((task) => task.name);
  const repeated = names.find((name, index) => names[index + 1] === name);
  if (repeated !== undefined) throw new ConfigError(`${file}: task "${repeated}" appears twice`);
  return { tasks, totals: computeTotals(tasks) };
}
