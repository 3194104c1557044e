import { TOOL_NAMES } from "./tool-names.js";

/**
 * A tool a task declares as a command (`command_tools:`): the model calls it by `name` with input
 * that fits `inputSchema`, and `command` runs with bash in the workspace, reading that input as
 * JSON on stdin. Plain data: the init line records it, and replay rebuilds it from there.
 */
export type CommandToolSpec = {
  name: string;
  description: string;
  /** The JSON Schema of its input (`type: object`), sent to the API as the tool's `input_schema`. */
  inputSchema: Record<string, unknown>;
  /** Run with `bash -c`; never holds the input (it arrives on stdin). */
  command: string;
  /** Per-call limit; on expiry the command's whole process tree is killed. */
  timeoutMs: number;
  /** Its item's line in the task file (0 when unknown). */
  line: number;
};

/** The Messages API's rule for tool names (OpenAI's for function names too). */
export const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Names starting with this belong to MCP servers' tools (`mcp__server__tool`, as Claude Code names them). */
export const MCP_TOOL_PREFIX = "mcp__";

/** The same rule for JSON Schema: the API's pattern, without the MCP prefix. */
export const COMMAND_TOOL_NAME_SCHEMA_PATTERN = `^(?!${MCP_TOOL_PREFIX})[a-zA-Z0-9_-]{1,64}$`;

/** Why `name` cannot name a command tool (the API's rule, a built-in tool, the MCP prefix), or undefined. */
export function commandToolNameProblem(name: string): string | undefined {
  if (!API_TOOL_NAME.test(name)) {
    return `expected 1 to 64 letters, digits, '_' or '-' (the API's rule for tool names), got ${JSON.stringify(clipName(name))}`;
  }
  if (TOOL_NAMES.some((builtIn) => builtIn === name)) {
    return `"${name}" is the name of a built-in tool; give the command tool another name`;
  }
  if (name.startsWith(MCP_TOOL_PREFIX)) {
    return `names starting with "${MCP_TOOL_PREFIX}" are kept for MCP servers' tools; give the command tool another name`;
  }
  return undefined;
}

function clipName(name: string): string {
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}
