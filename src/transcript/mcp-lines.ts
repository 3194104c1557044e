import {
  type McpServerConfig,
  type McpServerStatus,
  type McpToolSpec,
  mcpToolName,
} from "../tools/mcp-tools.js";

// The task's MCP servers as the init line records them: what each became, and what it declared.

/** The MCP tools offered, by the names the model sees. */
export function offeredMcpTools(servers: readonly McpServerStatus[]): string[] {
  return servers.flatMap((server) =>
    server.tools.map((tool) => mcpToolName(server.name, tool.name)),
  );
}

/**
 * A server's status as Claude Code's `McpServerStatus`, its tools with their input schemas (a
 * replay, fork or resume offers them again) and agent-run's notes on tools left out.
 */
export function mcpStatusJson(server: McpServerStatus) {
  return {
    name: server.name,
    status: server.status,
    ...(server.error === undefined ? {} : { error: server.error }),
    ...(server.serverInfo === undefined ? {} : { serverInfo: server.serverInfo }),
    tools: server.tools.map(mcpToolJson),
    ...(server.notes.length === 0 ? {} : { notes: server.notes }),
  };
}

function mcpToolJson(tool: McpToolSpec) {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/** A declared server in the init line's `task.mcp_servers`, as the task file gave it. */
export function mcpServerJson(server: McpServerConfig) {
  return {
    name: server.name,
    command: server.command,
    args: server.args,
    env: server.env,
    tools: server.tools ?? null,
    startup_timeout_ms: server.startupTimeoutMs,
    timeout_ms: server.timeoutMs,
  };
}
