import { z } from "zod";
import { TranscriptError } from "../errors.js";
import { NameSchema } from "../task/schema.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";

// What the exports read from a transcript's init line, checked like any hostile input: the
// reader has checked the line's shape loosely, these are the fields an export relies on.

const ToolSchemaObject = z.record(z.string(), z.unknown());

const RecordedToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: ToolSchemaObject.optional(),
});

const ExportInitSchema = z.looseObject({
  session_id: z.string().min(1),
  at: z.string(),
  model: z.string().min(1),
  agent_run_version: z.string().min(1),
  tools: z.array(z.string().min(1)),
  mcp_servers: z.array(
    z.looseObject({ name: z.string().min(1), tools: z.array(RecordedToolSchema).optional() }),
  ),
  task: z.looseObject({
    name: NameSchema,
    // Transcripts from before instance ids existed: the task name, as a task file's default.
    instance_id: NameSchema.optional(),
    file: z.string().optional(),
    prompt: z.string(),
    system: z.string(),
    provider: z.looseObject({ name: z.string().min(1) }).optional(),
    reasoning: z.looseObject({ effort: z.string().nullable().optional() }).nullable().optional(),
    bash: z
      .looseObject({
        timeout_ms: z.number().positive().optional(),
        max_output: z.number().int().positive().optional(),
      })
      .optional(),
    subagents: z.looseObject({ max_depth: z.number().int().positive().optional() }).optional(),
    sandbox: z.string().optional(),
    sandbox_limits: z
      .looseObject({
        tmp_size: z.number().int().positive(),
        shm_size: z.number().int().positive(),
        max_processes: z.number().int().positive(),
        max_file_size: z.number().int().positive(),
      })
      .optional(),
    command_tools: z.array(RecordedToolSchema).optional(),
  }),
});

/** A recorded tool's description and input schema, as the init line keeps them. */
export type RecordedTool = z.infer<typeof RecordedToolSchema>;

/** The init line, as the exports read it. */
export type ExportInit = z.infer<typeof ExportInitSchema>;

/**
 * The init line of a transcript's lines (from `readTranscript`); `path` names the file in errors.
 * Throws `TranscriptError` (exit 2) when a field an export needs is missing or malformed.
 */
export function parseExportInit(lines: readonly TranscriptLine[], path: string): ExportInit {
  const parsed = ExportInitSchema.safeParse(lines[0]);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
  throw lineError(path, 1, `${where}${issue?.message ?? "invalid"}`);
}

/** A line no run of agent-run could have written: what is wrong, where, and that nothing is exported. */
export function lineError(path: string, line: number, problem: string): TranscriptError {
  return new TranscriptError(
    `${path}:${line}: ${problem}; the transcript was edited, or is not agent-run's, and is not exported`,
  );
}

/** The benchmark instance the run is: the task's `instance_id`, else its name. */
export function instanceIdOf(init: ExportInit): string {
  return init.task.instance_id ?? init.task.name;
}

/** ISO 8601 as agent-run writes it (`toISOString`), which Python's `datetime.fromisoformat` reads. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?(Z|[+-]\d{2}:\d{2})$/;

export function timestampOf(at: string, path: string, lineNumber: number): string {
  if (ISO_TIME.test(at) && !Number.isNaN(Date.parse(at))) return at;
  throw lineError(
    path,
    lineNumber,
    `at: ${JSON.stringify(at.slice(0, 40))} is not an ISO 8601 time`,
  );
}
