import { z } from "zod";
import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { MCP_SERVER_NAME_PATTERN } from "../task/mcp-schema.js";
import { API_TOOL_NAME, MCP_TOOL_PREFIX } from "../tools/command-tool-spec.js";
import {
  MAX_SCHEMA_DEPTH,
  type McpServerConfig,
  type McpToolSpec,
  mcpToolName,
} from "../tools/mcp-tools.js";

// What a transcript recorded of a run's MCP servers, read back as hostile input: the servers the
// task declared (the init line's `task.mcp_servers`), the tools each offered (the init line's
// `mcp_servers`), and the results of their calls. Transcripts from before MCP servers have none.

/** One server as the init line's `task.mcp_servers` records it. */
const RecordedServerSchema = z.object({
  name: z.string().regex(MCP_SERVER_NAME_PATTERN),
  command: z.string().min(1),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  tools: z.array(z.string()).nullable(),
  startup_timeout_ms: z.number().int().positive(),
  timeout_ms: z.number().int().positive(),
});

/** The init line's `task.mcp_servers`; `[]` in transcripts from before MCP servers. */
export const RecordedMcpServersSchema = z.array(RecordedServerSchema).default([]);

/** The declared servers, as the task had them. */
export function toMcpServerConfigs(
  recorded: z.infer<typeof RecordedMcpServersSchema>,
): McpServerConfig[] {
  return recorded.map((server) => ({
    name: server.name,
    command: server.command,
    args: server.args,
    env: server.env,
    tools: server.tools ?? undefined,
    startupTimeoutMs: server.startup_timeout_ms,
    timeoutMs: server.timeout_ms,
  }));
}

const RecordedToolSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
});

const RecordedStatusSchema = z.looseObject({
  name: z.string().regex(MCP_SERVER_NAME_PATTERN),
  tools: z.array(z.unknown()).default([]),
});

/**
 * The tools each server offered, from the init line's `mcp_servers`, by server name. Entries and
 * tools that do not read as such (a name the API would refuse, a schema nested too deep) are
 * left out: a replay offers what it can trust.
 */
export function recordedMcpTools(value: unknown): Map<string, McpToolSpec[]> {
  const tools = new Map<string, McpToolSpec[]>();
  if (!Array.isArray(value)) return tools;
  for (const entry of value) {
    const server = RecordedStatusSchema.safeParse(entry, { jitless: true });
    if (!server.success || tools.has(server.data.name)) continue;
    tools.set(
      server.data.name,
      server.data.tools.flatMap((tool) => toSpec(server.data.name, tool)),
    );
  }
  return tools;
}

function toSpec(server: string, value: unknown): McpToolSpec[] {
  if (nestsDeeperThan(value, MAX_SCHEMA_DEPTH + 2)) return [];
  const tool = RecordedToolSchema.safeParse(value, { jitless: true });
  if (!tool.success || !API_TOOL_NAME.test(mcpToolName(server, tool.data.name))) return [];
  return [
    {
      name: tool.data.name,
      description: clip(tool.data.description, 2_048),
      inputSchema: tool.data.input_schema,
    },
  ];
}

/** A recorded result of an MCP tool call, with the call's id and step. */
export type RecordedMcpCall = {
  toolUseId: string;
  /** The top-level agent's step (for a subagent's call, the step of its `task` call). */
  step: number;
  content: string;
  isError: boolean;
};

/** Whether a recorded tool name is an MCP server's tool. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
