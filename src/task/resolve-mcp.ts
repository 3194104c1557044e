import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { TaskFileProblem } from "../errors.js";
import { API_TOOL_NAME } from "../tools/command-tool-spec.js";
import { type McpServerConfig, mcpToolName } from "../tools/mcp-tools.js";
import { DEFAULT_MCP_STARTUP_TIMEOUT_MS } from "./mcp-schema.js";
import type { TaskFile } from "./schema.js";
import { durationMs } from "./schema-fields.js";
import { type Locator, problemAt } from "./yaml-locator.js";

/**
 * The task file's `mcp_servers` in file order: durations in milliseconds (a call's limit defaults
 * to the bash timeout), a `command` with a `/` made absolute from the task file's folder; and each
 * allow-listed tool whose full name the API would refuse.
 */
export function resolveMcpServers(
  file: string,
  data: TaskFile,
  bashTimeoutMs: number,
  locator: Locator,
): { servers: McpServerConfig[]; problems: TaskFileProblem[] } {
  const problems: TaskFileProblem[] = [];
  const servers = Object.entries(data.mcp_servers ?? {}).map(([name, server]) => {
    for (const [index, tool] of (server.tools ?? []).entries()) {
      const fullName = mcpToolName(name, tool);
      if (API_TOOL_NAME.test(fullName)) continue;
      const message = `the model would see this tool as "${fullName}", ${fullName.length} characters, past the API's 64; shorten the server's name`;
      problems.push(
        problemAt(file, locator, ["mcp_servers", name, "tools", index], message, "value"),
      );
    }
    const command = commandPath(dirname(file), server.command);
    // A path is checked now, as the workspace is: a program name is found on PATH when it starts.
    if (command.includes("/") && !existsSync(command)) {
      const message = `${JSON.stringify(command)} does not exist; a command with a "/" is relative to the task file's folder`;
      problems.push(problemAt(file, locator, ["mcp_servers", name, "command"], message, "value"));
    }
    return {
      name,
      command,
      args: server.args ?? [],
      env: server.env ?? {},
      tools: server.tools,
      startupTimeoutMs: durationMs(server.startup_timeout, DEFAULT_MCP_STARTUP_TIMEOUT_MS),
      timeoutMs: durationMs(server.timeout, bashTimeoutMs),
    };
  });
  return { servers, problems };
}

/** A program name stays as it is (PATH finds it); a path is made absolute from the task's folder. */
function commandPath(folder: string, command: string): string {
  return command.includes("/") && !isAbsolute(command) ? resolve(folder, command) : command;
}
