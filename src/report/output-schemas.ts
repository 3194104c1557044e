import { z } from "zod";
import { SCHEMA_ID_BASE } from "../task/json-schema.js";
import { TaskListJsonSchema } from "../task/task-list-json.js";
import * as lineSchemas from "../transcript/line-schemas.js";
import { ComparisonJsonSchema } from "./compare-json.js";
import { ReportJsonSchema } from "./report-json-schema.js";
import { SummaryJsonSchema } from "./summary-json-schema.js";

/** One JSON Schema file under schema/, by its path there. */
export type SchemaFile = { path: string; schema: Record<string, unknown> };

/**
 * JSON Schemas of everything a run writes, generated from the zod schemas its writers are typed
 * by and its readers parse with: `summary.json`, `report.json`, `list --json`'s task list, `report --compare --json`'s comparison, and one per transcript line kind
 * (each `*LineSchema` export of line-schemas.ts), plus one for any line. Draft-07, like the task
 * schema, so one Ajv class reads them all. `npm run schema` writes them.
 */
export function outputJsonSchemas(): SchemaFile[] {
  const lines = Object.entries(lineSchemas).flatMap(([name, schema]) => {
    const kind = /^(\w+)LineSchema$/.exec(name)?.[1];
    if (kind === undefined || kind === "Transcript" || !(schema instanceof z.ZodType)) return [];
    const file = `transcript/${kebabCase(kind)}-line.schema.json`;
    return [publish(file, schema, `agent-run transcript line: ${kebabCase(kind)}`)];
  });
  return [
    publish("summary.schema.json", SummaryJsonSchema, "agent-run summary.json"),
    publish("report.schema.json", ReportJsonSchema, "agent-run report.json"),
    publish("task-list.schema.json", TaskListJsonSchema, "agent-run list --json"),
    publish("comparison.schema.json", ComparisonJsonSchema, "agent-run report --compare --json"),
    publish(
      "transcript-line.schema.json",
      lineSchemas.TranscriptLineSchema,
      "agent-run transcript line (any kind)",
    ),
    ...lines.sort((a, b) => (a.path < b.path ? -1 : 1)),
  ];
}

function publish(path: string, schema: z.ZodType, title: string): SchemaFile {
  // "input": the files as a reader meets them (a field with a default may be missing).
  const { $schema, ...rest } = z.toJSONSchema(schema, { io: "input", target: "draft-7" });
  return { path, schema: { $schema, $id: `${SCHEMA_ID_BASE}${path}`, title, ...rest } };
}

/** `ApiError` → `api-error`. */
function kebabCase(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, "-$1").toLowerCase();
}
