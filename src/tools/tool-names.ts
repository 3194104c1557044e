/** The tools a task can give the agent, in the order they are offered. */
export const TOOL_NAMES = [
  "bash",
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
  "todo_write",
  "todo_read",
  "task",
] as const;

/** One of the built-in tools. */
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * The tools a task gets when it lists none. The plan (`todo_write`, `todo_read`) and subagents
 * (`task`) are offered only to a task that lists them: they change how the agent works.
 */
export const DEFAULT_TOOL_NAMES: readonly ToolName[] = [
  "bash",
  "read_file",
  "write_file",
  "edit_file",
  "list_files",
];
