import type { TaskFileProblem } from "../errors.js";
import { checksOfKind } from "./resolve-checks.js";
import type { TaskFile } from "./schema.js";
import { type Locator, problemAt } from "./yaml-locator.js";

/**
 * The task's tools that do not fit together, each where it was written: `todo_read` without
 * `todo_write` (the plan it reads is never written), a `plan_complete` check without `todo_write`
 * (it could never pass), and `subagents:` without the `task` tool (its settings would do nothing).
 */
export function toolProblems(file: string, data: TaskFile, locator: Locator): TaskFileProblem[] {
  const problems: TaskFileProblem[] = [];
  const tools = data.tools;
  const hasPlan = tools?.includes("todo_write") === true;
  const readAt = tools?.indexOf("todo_read") ?? -1;
  if (readAt !== -1 && !hasPlan) {
    const message = "todo_read reads the plan that todo_write writes; add todo_write to tools";
    problems.push(problemAt(file, locator, ["tools", readAt], message, "value"));
  }
  for (const index of hasPlan ? [] : checksOfKind(data, "plan_complete")) {
    const message =
      "plan_complete checks the plan that the todo_write tool keeps, which this task does not offer; add todo_write to tools";
    problems.push(problemAt(file, locator, ["checks", index, "plan_complete"], message, "value"));
  }
  if (data.subagents !== undefined && tools?.includes("task") !== true) {
    const message = "sets up the task tool, which this task does not offer; add task to tools";
    problems.push(problemAt(file, locator, ["subagents"], message, "key"));
  }
  return problems;
}
