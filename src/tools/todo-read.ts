import { z } from "zod";
import { defineTool, type Tool } from "./define-tool.js";
import { type PlanStore, renderPlan } from "./plan-store.js";

const DESCRIPTION =
  "Show your plan as it now stands (what todo_write last wrote): each item and its status.";

/** The todo_read tool: the calling agent's plan, read back. */
export function createTodoReadTool(store: PlanStore): Tool {
  return defineTool({
    name: "todo_read",
    description: DESCRIPTION,
    input: z.object({}).strict(),
    async run(_input, ctx) {
      const items = store.get(ctx.parentToolUseId);
      const content =
        items === undefined ? "No plan yet: write one with todo_write." : renderPlan(items);
      return { content, isError: false };
    },
  });
}
