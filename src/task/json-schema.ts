import { z } from "zod";
import { TaskFileSchema } from "./schema.js";

/** Where every published schema's `$id` starts: the repository's schema/ folder. */
export const SCHEMA_ID_BASE = "https://github.com/agent-run/agent-run/schema/";

/** Where editors find the schema; `npm run schema` writes it to schema/task.schema.json. */
export const TASK_SCHEMA_ID = `${SCHEMA_ID_BASE}task.schema.json`;

/**
 * The task file format as JSON Schema, generated from `TaskFileSchema` so the two never drift.
 * Draft-07, the draft YAML editors (yaml-language-server) and SchemaStore support best.
 */
export function taskJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(TaskFileSchema, { io: "input", target: "draft-7" });
  return {
    $schema,
    $id: TASK_SCHEMA_ID,
    title: "agent-run task file",
    description:
      "One task for agent-run: a prompt, the workspace folder the agent works in, and optional limits, tools and bash settings. Unknown fields are errors.",
    ...schema,
  };
}
