import { describe, expect, test } from "vitest";
import { createPlanStore } from "../../src/tools/plan-store.js";
import { createTodoReadTool } from "../../src/tools/todo-read.js";
import { createTodoWriteTool } from "../../src/tools/todo-write.js";

const ctx = (parentToolUseId?: string) => ({
  workspaceRoot: "/nonexistent",
  signal: new AbortController().signal,
  ...(parentToolUseId === undefined ? {} : { parentToolUseId }),
});

describe("todo_write and todo_read", () => {
  test("todo_write replaces the plan and shows it back; todo_read reads it", async () => {
    const store = createPlanStore();
    const write = createTodoWriteTool(store);
    const read = createTodoReadTool(store);

    expect(await read.execute({}, ctx())).toEqual({
      content: "No plan yet: write one with todo_write.",
      isError: false,
    });
    const todos = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress" },
      { content: "Run the tests", status: "pending" },
    ];
    const written = await write.execute({ todos }, ctx());

    expect(written).toEqual({
      content:
        "Plan updated. 1 of 3 completed:\n[x] 1. Read the code\n[>] 2. Fix the bug\n[ ] 3. Run the tests",
      isError: false,
      plan: todos,
    });
    expect((await read.execute({}, ctx())).content).toBe(
      "1 of 3 completed:\n[x] 1. Read the code\n[>] 2. Fix the bug\n[ ] 3. Run the tests",
    );
  });

  test("each agent keeps a plan of its own: a subagent's does not touch its parent's", async () => {
    const store = createPlanStore();
    const write = createTodoWriteTool(store);
    await write.execute({ todos: [{ content: "parent step", status: "pending" }] }, ctx());
    await write.execute({ todos: [] }, ctx("toolu_child"));

    expect(store.get(undefined)).toEqual([{ content: "parent step", status: "pending" }]);
    expect(store.get("toolu_child")).toEqual([]);
    const read = createTodoReadTool(store);
    expect((await read.execute({}, ctx("toolu_child"))).content).toBe("The plan is empty.");
  });

  test("two items in progress, an unknown status or an oversized plan are refused; the plan is kept", async () => {
    const store = createPlanStore();
    const write = createTodoWriteTool(store);
    await write.execute({ todos: [{ content: "keep me", status: "pending" }] }, ctx());

    // A ToolError: the loop turns it into an error result for the model.
    await expect(
      write.execute(
        {
          todos: [
            { content: "a", status: "in_progress" },
            { content: "b", status: "in_progress" },
          ],
        },
        ctx(),
      ),
    ).rejects.toThrow(
      'todo_write: 2 items are in_progress ("a", "b"); keep at most one in progress and send the plan again',
    );
    const unknown = await write.execute({ todos: [{ content: "a", status: "done" }] }, ctx());
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toMatch(/^todo_write: "todos\.0\.status": /);
    const huge = Array.from({ length: 101 }, (_, index) => ({
      content: `${index}`,
      status: "pending",
    }));
    expect((await write.execute({ todos: huge }, ctx())).isError).toBe(true);
    const blank = await write.execute({ todos: [{ content: "  ", status: "pending" }] }, ctx());
    expect(blank.isError).toBe(true);
    expect(store.get(undefined)).toEqual([{ content: "keep me", status: "pending" }]);
  });
});
