import { z } from "zod";
import { describeValue } from "./describe-value.js";
import { duration, envMap } from "./schema-fields.js";

/** How long a server may take to start (its process, `initialize`, `tools/list`) when the task sets no limit. */
export const DEFAULT_MCP_STARTUP_TIMEOUT_MS = 30_000;

/**
 * Server names: the `<server>` of `mcp__<server>__<tool>`, which must stay readable as one name
 * (no `__`) and leave room for a tool name in the API's 64 characters.
 */
export const MCP_SERVER_NAME_PATTERN = /^(?!.*__)[A-Za-z0-9_-]{1,56}$/;

/** A tool name the allow-list may hold: one the API accepts inside `mcp__<server>__<tool>`. */
const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,56}$/;

const serverName = z.string().regex(MCP_SERVER_NAME_PATTERN, {
  error: (issue) =>
    `expected an MCP server name: 1 to 56 letters, digits, '_' or '-', without "__", got ${describeValue(issue.input)}`,
});

const toolName = z.string().regex(MCP_TOOL_NAME_PATTERN, {
  error: (issue) =>
    `expected a tool name as the server lists it: 1 to 56 letters, digits, '_' or '-', got ${describeValue(issue.input)}`,
});

const McpServerSchema = z
  .object({
    type: z
      .enum(["stdio"], {
        error: (issue) =>
          `only "stdio" servers are supported (agent-run starts each server and talks to it over stdin and stdout), got ${describeValue(issue.input)}`,
      })
      .optional()
      .describe(
        'The transport: only "stdio" (a process agent-run starts and talks to over stdin and stdout). Accepted so that an entry of a .mcp.json file can be copied as it is.',
      ),
    command: z
      .string()
      .min(1, "must not be empty; name the server's program")
      .describe(
        "The server's program: a name looked up on the command environment's PATH (node, npx, uvx), an absolute path, or a path relative to this task file's folder. Required.",
      ),
    args: z
      .array(z.string())
      .optional()
      .describe("Its arguments, passed as they are (no shell parses them). Default: none."),
    env: envMap(
      "Environment variables added to the server's: it gets the task's command environment (never the API key) and these. Recorded with their values in the transcript. Default: none.",
    ),
    tools: z
      .array(toolName)
      .min(1, { error: "lists no tool; leave tools out to offer all of the server's tools" })
      .check(refuseRepeats)
      .meta({ uniqueItems: true })
      .optional()
      .describe(
        "The server's tools the agent may use, by the names the server lists; the model sees each as mcp__<server>__<tool>. Default: all of them.",
      ),
    startup_timeout: duration(
      `Limit for starting the server: its process, initialize and tools/list; past it the server counts as failed. Default: ${DEFAULT_MCP_STARTUP_TIMEOUT_MS / 1_000}s.`,
    ),
    timeout: duration(
      "Limit for one tool call; past it the call is an error result for the model. Default: bash.timeout.",
    ),
  })
  .strict();

/** A task's `mcp_servers`: Claude Code's `.mcp.json` `mcpServers`, stdio only, snake_case. */
export const McpServersSchema = z
  .record(serverName, McpServerSchema)
  .optional()
  .describe(
    "MCP servers whose tools the agent may use, keyed by server name (the shape of Claude Code's .mcp.json mcpServers, stdio only). Each starts in the workspace once it is prepared, under the sandbox when the task has one, and stops when the agent stops. Default: none.",
  );

/** A name listed twice is a slip: refused at the repeat. */
function refuseRepeats(ctx: z.core.ParsePayload<string[]>): void {
  ctx.value.forEach((name, index) => {
    const first = ctx.value.indexOf(name);
    if (first === index) return;
    ctx.issues.push({
      code: "custom",
      input: name,
      path: [index],
      message: `"${name}" is listed twice (also at tools[${first}]); remove this one`,
    });
  });
}
