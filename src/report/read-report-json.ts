import { z } from "zod";
import { ConfigError } from "../errors.js";
import { MAX_TRIALS } from "../task/schema-fields.js";
import { type Report, type ReportRun, reportTask, withTotals } from "./aggregate.js";
import { TaskFingerprintJsonSchema } from "./fingerprint.js";
import { parseVersionedJson } from "./json-issue.js";
import { REPORT_VERSION, ReportRunJsonSchema, ReportTaskJsonSchema } from "./report-json-schema.js";
import { EarlierAttemptReadSchema, UsageReadSchema } from "./run-summary.js";
import { LimitExceededReadSchema, TaskNameJsonSchema } from "./summary-json-schema.js";

// Reading `report.json` back (merging shards, comparing reports): apart from writing it, so that a
// run, which only writes one, does not build these schemas. Version 1 (a task per run, before
// trials) is read as tasks of one trial each.

const RunFieldsJsonSchema = ReportRunJsonSchema.extend({
  usage: UsageReadSchema,
  limit_exceeded_by_final_reply: LimitExceededReadSchema.nullable().default(null),
  earlier_attempts: z.array(EarlierAttemptReadSchema).default([]),
});

const RunJsonSchema = RunFieldsJsonSchema.transform(toReportRun);

/** A run of `report.json` (its snake_case fields) as the report's run. */
function toReportRun(run: z.output<typeof RunFieldsJsonSchema>): ReportRun {
  return {
    trial: run.trial,
    attempts: run.attempts,
    model: run.model,
    status: run.status,
    passed: run.passed,
    error: run.error,
    errorKind: run.error_kind,
    steps: run.steps,
    usage: run.usage,
    totalTokens: run.total_tokens,
    costUsd: run.cost_usd,
    durationMs: run.duration_ms,
    changedFileCount: run.changed_file_count,
    checkCount: run.check_count,
    failedChecks: run.failed_checks,
    limitExceededByFinalReply: run.limit_exceeded_by_final_reply,
    plan: run.plan,
    earlierAttempts: run.earlier_attempts,
  };
}

/** Version 2: the task's figures are derived from its runs, which are what counts. */
const TaskJsonSchema = ReportTaskJsonSchema.pick({ name: true, task_file: true }).extend({
  runs: z.array(RunJsonSchema).min(1).max(MAX_TRIALS),
  // Reports from before fingerprints have none: a comparison says so.
  fingerprint: TaskFingerprintJsonSchema.optional(),
});

/** Version 1: a task was one run, with its figures beside its name. */
const V1TaskJsonSchema = ReportRunJsonSchema.omit({
  trial: true,
  attempts: true,
  error_kind: true,
  earlier_attempts: true,
}).extend({
  name: TaskNameJsonSchema,
  task_file: z.string(),
  usage: UsageReadSchema,
  limit_exceeded_by_final_reply: LimitExceededReadSchema.nullable().default(null),
});

/** The file's tasks are what counts; its totals are recomputed from them (they are derived). */
const ReadReportSchema = z.discriminatedUnion("schema_version", [
  z.looseObject({ schema_version: z.literal(1), tasks: z.array(V1TaskJsonSchema) }),
  z.looseObject({ schema_version: z.literal(REPORT_VERSION), tasks: z.array(TaskJsonSchema) }),
]);

/** Reads a `report.json`'s text back into a report; `file` names it in errors (`ConfigError`). */
export function parseReportJson(text: string, file: string): Report {
  const parsed = parseVersionedJson(text, file, REPORT_VERSION, ReadReportSchema);
  const tasks =
    parsed.schema_version === 1
      ? parsed.tasks.map((task) => reportTask(task.name, task.task_file, [v1Run(task)], null))
      : parsed.tasks.map((task) =>
          reportTask(task.name, task.task_file, trialsOf(task, file), task.fingerprint ?? null),
        );
  const names = tasks.map((task) => task.name).sort();
  const repeated = names.find((name, index) => names[index + 1] === name);
  if (repeated !== undefined) throw new ConfigError(`${file}: task "${repeated}" appears twice`);
  return withTotals(tasks);
}

/** A task's runs by trial; a trial listed twice is refused. */
function trialsOf(task: z.output<typeof TaskJsonSchema>, file: string): ReportRun[] {
  const runs = [...task.runs].sort((a, b) => a.trial - b.trial);
  const repeated = runs.find((run, index) => runs[index + 1]?.trial === run.trial);
  if (repeated !== undefined) {
    throw new ConfigError(`${file}: task "${task.name}" has trial ${repeated.trial} twice`);
  }
  return runs;
}

/** A version 1 task as the one run of its task: its first trial and attempt, none retried. */
function v1Run(task: z.output<typeof V1TaskJsonSchema>): ReportRun {
  return toReportRun({ ...task, trial: 1, attempts: 1, error_kind: null, earlier_attempts: [] });
}
