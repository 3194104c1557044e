/** The tools a task can give the agent, in the order they are offered. */
export const TOOL_NAMES = ["bash", "read_file", "write_file", "edit_file", "list_files"] as const;

/** One of the built-in tools. */
export type ToolName = (typeof TOOL_NAMES)[number];
