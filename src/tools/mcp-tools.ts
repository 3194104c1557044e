import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { API_TOOL_NAME, MCP_TOOL_PREFIX } from "./command-tool-spec.js";
import type { Tool, ToolContext, ToolResult } from "./define-tool.js";

// MCP servers' tools as the loop sees them: named `mcp__<server>__<tool>`, chosen by the task's
// allow-list, bounded (a server's list is hostile input), and answered from a recording when a
// replay, fork or resume serves a recorded call. Nothing here talks to a server.

/** One MCP server a task declares (`mcp_servers:`), resolved. */
export type McpServerConfig = {
  /** The key in `mcp_servers`: letters, digits, `_` and `-`, without `__`. */
  name: string;
  /** The program: an absolute path, or a name looked up on the command environment's PATH. */
  command: string;
  args: string[];
  /** Added to the task's command environment. */
  env: Record<string, string>;
  /** The server's tools to offer, by the server's own names; undefined: all of them. */
  tools: string[] | undefined;
  /** Limit for starting: the process, `initialize` and `tools/list`. */
  startupTimeoutMs: number;
  /** Limit for one `tools/call`. */
  timeoutMs: number;
};

/** A tool a server offers, as sent to the model under its full name. */
export type McpToolSpec = {
  /** The server's own name for it. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
};

/** What became of one server; the init line's `mcp_servers` entries, as Claude Code's. */
export type McpServerStatus = {
  name: string;
  /** `replayed`: a replay answers its calls from the recording; no server runs. */
  status: "connected" | "failed" | "replayed";
  /** Why it failed, for `failed`. */
  error?: string;
  serverInfo?: { name: string; version: string };
  /** The tools offered to the model. */
  tools: McpToolSpec[];
  /** Tools left out, and allow-listed tools the server does not have. */
  notes: string[];
};

/** A recorded MCP call's result, served again by its `tool_use` id. */
export type RecordedMcpResult = { content: string; isError: boolean };

/** What a replay, fork or resume knows of the recorded run's MCP servers. */
export type McpRecording = {
  /**
   * The recorded results of the calls the recording serves (steps 1..K), by `tool_use` id, in
   * call order: an id some server gave to calls of several replies (`call_0`) is served in turn.
   */
  results: ReadonlyMap<string, readonly RecordedMcpResult[]>;
  /** The tools each server offered in the recorded run, by server name. */
  tools: ReadonlyMap<string, readonly McpToolSpec[]>;
  /** Whether the task's servers start (fork, resume) or none runs (replay). */
  isLive: boolean;
};

/** Answers one call of a server's tool (`tool` is the server's own name). */
export type McpCall = (
  server: string,
  tool: string,
  input: unknown,
  ctx: ToolContext,
) => Promise<ToolResult>;

/** The name the model sees for a server's tool. */
export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${tool}`;
}

/** Most tools one server may offer; a longer list is cut, and the status says so. */
export const MAX_TOOLS_PER_SERVER = 100;

/** Longest tool description sent to the model, as Claude Code cuts them. */
const MAX_DESCRIPTION_CHARS = 2_048;

/** Largest input schema (as JSON) and deepest nesting a tool may have to be offered. */
const MAX_SCHEMA_CHARS = 64 * 1024;
export const MAX_SCHEMA_DEPTH = 32;

/** A tool as a server listed it: every field is the server's word. */
export type ListedTool = { name: string; description?: string | undefined; inputSchema: object };

/**
 * The tools to offer from a server's list: those the allow-list names (all without one), each
 * whose full name fits the API, description cut, schema bounded; and notes on what was left out.
 */
export function selectTools(
  config: Pick<McpServerConfig, "name" | "tools">,
  listed: readonly ListedTool[],
): { tools: McpToolSpec[]; notes: string[] } {
  const tools: McpToolSpec[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const tool of listed) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    if (config.tools !== undefined && !config.tools.includes(tool.name)) continue;
    const problem = specProblem(config.name, tool);
    if (problem !== undefined) notes.push(`${quoted(tool.name)} left out: ${problem}`);
    else if (tools.length === MAX_TOOLS_PER_SERVER)
      notes.push(`${quoted(tool.name)} left out: past ${MAX_TOOLS_PER_SERVER} tools`);
    else tools.push(toSpec(tool));
  }
  for (const name of config.tools ?? []) {
    if (!seen.has(name))
      notes.push(`${quoted(name)} is in tools: but the server does not offer it`);
  }
  return { tools, notes: notes.slice(0, MAX_TOOLS_PER_SERVER) };
}

function specProblem(server: string, tool: ListedTool): string | undefined {
  const fullName = mcpToolName(server, tool.name);
  if (!API_TOOL_NAME.test(fullName)) {
    return `its full name ${quoted(fullName)} is not 1 to 64 letters, digits, '_' or '-'`;
  }
  if (nestsDeeperThan(tool.inputSchema, MAX_SCHEMA_DEPTH)) {
    return `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  }
  if (JSON.stringify(tool.inputSchema).length > MAX_SCHEMA_CHARS) {
    return `its input schema is larger than ${MAX_SCHEMA_CHARS} characters`;
  }
  return undefined;
}

/** The spec sent to the model; `$schema` is dropped, as from the built-in tools' schemas. */
function toSpec(tool: ListedTool): McpToolSpec {
  const inputSchema: Record<string, unknown> = { ...tool.inputSchema };
  delete inputSchema.$schema;
  return {
    name: tool.name,
    description: clip(tool.description ?? "", MAX_DESCRIPTION_CHARS),
    inputSchema,
  };
}

/** A name from a server, quoted and cut for a message. */
function quoted(name: string): string {
  return clip(JSON.stringify(name), 200);
}

/**
 * Serves a recording's MCP results by `tool_use` id, each once, in the order they were recorded;
 * undefined once an id's results are all served (or it has none).
 */
export function createRecordedResults(recording: McpRecording | undefined) {
  const left = new Map([...(recording?.results ?? [])].map(([id, results]) => [id, [...results]]));
  return (toolUseId: string | undefined): RecordedMcpResult | undefined =>
    toolUseId === undefined ? undefined : left.get(toolUseId)?.shift();
}

/**
 * The tools of one server for the loop: each call goes to `call`, unless `recorded` has a result
 * for its `tool_use` id (then that result comes back, marked as served from the recording).
 */
export function mcpTools(
  server: string,
  specs: readonly McpToolSpec[],
  call: McpCall,
  recorded: ReturnType<typeof createRecordedResults> = () => undefined,
): Tool[] {
  return specs.map((spec) => ({
    name: mcpToolName(server, spec.name),
    description: spec.description,
    inputSchema: spec.inputSchema,
    async execute(input, ctx) {
      const result = recorded(ctx.toolUseId);
      if (result !== undefined) return { ...result, isFromRecording: true };
      return call(server, spec.name, input, ctx);
    },
  }));
}

/** A replay's answer to an MCP call the recording has no result for: no server runs in a replay. */
export const replayedCall: McpCall = async (server, tool, _input, ctx) => ({
  content: `${mcpToolName(server, tool)}: the recording has no result for this call (${ctx.toolUseId ?? "no id"}), and MCP servers do not run in a replay`,
  isError: true,
});
