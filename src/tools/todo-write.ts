import { z } from "zod";
import { defineTool, type Tool, ToolError } from "./define-tool.js";
import {
  MAX_PLAN_ITEM_CHARS,
  MAX_PLAN_ITEMS,
  PLAN_STATUSES,
  type PlanStore,
  renderPlan,
} from "./plan-store.js";

const TodoWriteInputSchema = z
  .object({
    todos: z
      .array(
        z
          .object({
            content: z
              .string()
              .trim()
              .min(1)
              .max(MAX_PLAN_ITEM_CHARS)
              .describe("What to do, in a short imperative sentence."),
            status: z.enum(PLAN_STATUSES).describe("pending, in_progress or completed."),
          })
          .strict(),
      )
      .max(MAX_PLAN_ITEMS)
      .describe("The whole plan, in order: it replaces the previous one."),
  })
  .strict();

const DESCRIPTION = [
  "Write your plan for the task: the whole list of steps, each pending, in_progress or completed.",
  "Each call replaces the previous list, so send every item each time.",
  "Keep exactly one item in_progress while you work on it, and mark it completed as soon as it is done.",
  "The result shows the plan as it now stands.",
].join(" ");

/** The todo_write tool: replaces the calling agent's plan and shows it back. */
export function createTodoWriteTool(store: PlanStore): Tool {
  return defineTool({
    name: "todo_write",
    description: DESCRIPTION,
    input: TodoWriteInputSchema,
    async run(input, ctx) {
      const inProgress = input.todos.filter((item) => item.status === "in_progress");
      if (inProgress.length > 1) {
        const which = inProgress.map((item) => JSON.stringify(item.content.slice(0, 80)));
        throw new ToolError(
          `todo_write: ${inProgress.length} items are in_progress (${which.join(", ")}); keep at most one in progress and send the plan again`,
        );
      }
      store.set(ctx.parentToolUseId, input.todos);
      return {
        content: `Plan updated. ${renderPlan(input.todos)}`,
        isError: false,
        plan: input.todos,
      };
    },
  });
}
