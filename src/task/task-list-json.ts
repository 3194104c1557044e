import { z } from "zod";
import { TASK_NAME_PATTERN, type Task } from "./schema.js";

// `agent-run list --json`: the batch's tasks as a JSON array, one object per task, for CI systems
// that fan a batch out over jobs (GitHub's `fromJSON` matrices, Argo's `withParam`). `npm run
// schema` publishes it as schema/task-list.schema.json; its field names are stable.

const count = z.number().int().positive();

/** One task of the list. */
const TaskListEntryJsonSchema = z
  .object({
    name: z.string().regex(TASK_NAME_PATTERN).describe("The task's name (its run folder's name)."),
    file: z
      .string()
      .describe(
        "The task file as given on the command line (a glob's match, relative to where agent-run ran).",
      ),
    model: z.string().describe("The model the run would use (--model, the task's, the default)."),
    provider: z.string().describe("The provider preset (anthropic, openai, …)."),
    limits: z
      .object({
        max_steps: count,
        max_tokens: count,
        max_output_tokens: count,
        max_cost_usd: z.number().positive().nullable().describe("Null: no cap."),
        timeout_ms: count,
        max_context_tokens: count,
      })
      .strict()
      .describe("The task's limits, with the command line's overrides applied."),
  })
  .strict();

/** The whole list, in the order a run would start the tasks (a shard's: by name). */
export const TaskListJsonSchema = z
  .array(TaskListEntryJsonSchema)
  .describe("agent-run list --json: the validated (and sharded) tasks of a batch.");

export type TaskListJson = z.input<typeof TaskListJsonSchema>;

/** The list of `tasks`, each with the model `modelOf` gives it. */
export function taskListJson(
  tasks: readonly Task[],
  modelOf: (task: Task) => string,
): TaskListJson {
  return tasks.map((task) => ({
    name: task.name,
    file: task.file,
    model: modelOf(task),
    provider: task.provider.name,
    limits: {
      max_steps: task.limits.maxSteps,
      max_tokens: task.limits.maxTokens,
      max_output_tokens: task.limits.maxOutputTokens,
      max_cost_usd: task.limits.maxCostUsd ?? null,
      timeout_ms: task.limits.timeoutMs,
      max_context_tokens: task.limits.maxContextTokens,
    },
  }));
}
