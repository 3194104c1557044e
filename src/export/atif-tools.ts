import { taskToolSpec } from "../agent/subagent.js";
import { DEFAULT_BASH_TIMEOUT_MS } from "../task/schema.js";
import { DEFAULT_SUBAGENTS } from "../task/subagents-schema.js";
import { describeBash } from "../tools/bash.js";
import { createTools } from "../tools/index.js";
import { mcpToolName } from "../tools/mcp-tools.js";
import { DEFAULT_SANDBOX_LIMITS } from "../tools/sandbox.js";
import { TOOL_NAMES } from "../tools/tool-names.js";
import { MAX_TOOL_OUTPUT_CHARS } from "../tools/truncate.js";
import type { AtifToolDefinition, JsonObject } from "./atif-types.js";
import type { ExportInit, RecordedTool } from "./export-init.js";

// ATIF's `tool_definitions` (OpenAI's function-calling shape) of the tools an agent was offered:
// the built-in ones as src/tools defines them, for the run's bash settings; command tools and MCP
// tools as the init line recorded them.

type ToolSpec = { name: string; description?: string | undefined; inputSchema?: JsonObject };

/**
 * The definitions of the tools `names` (the init line's `tools`, or a subagent's), in that order.
 * `depth` is the agent's (0: the top-level agent): whether its `task` tool may nest. A tool
 * whose schema the transcript does not hold (an older one's command tool) is named only.
 */
export function toolDefinitions(
  init: ExportInit,
  names: readonly string[],
  depth: number,
): AtifToolDefinition[] {
  const specs = new Map<string, ToolSpec>();
  for (const tool of builtInTools(init, names)) specs.set(tool.name, tool);
  const maxDepth = init.task.subagents?.max_depth ?? DEFAULT_SUBAGENTS.maxDepth;
  specs.set("task", taskToolSpec(depth + 1 < maxDepth));
  for (const tool of init.task.command_tools ?? [])
    specs.set(tool.name, recordedSpec(tool.name, tool));
  for (const server of init.mcp_servers) {
    for (const tool of server.tools ?? []) {
      const name = mcpToolName(server.name, tool.name);
      specs.set(name, recordedSpec(name, tool));
    }
  }
  return names.map((name) => definitionOf(specs.get(name) ?? { name }));
}

/**
 * The built-in tools among `names` (`task` aside), as the run made them. They are made without a
 * sandbox (nothing runs, and bubblewrap need not be installed); bash's description then gets the
 * sandbox's sentence of a run that had one.
 */
function builtInTools(init: ExportInit, names: readonly string[]): ToolSpec[] {
  const timeoutMs = init.task.bash?.timeout_ms ?? DEFAULT_BASH_TIMEOUT_MS;
  const maxOutputChars = init.task.bash?.max_output ?? MAX_TOOL_OUTPUT_CHARS;
  const tools = createTools(
    TOOL_NAMES.filter((name) => names.includes(name)),
    { bash: { timeoutMs, env: {}, maxOutputChars } },
  );
  if (init.task.sandbox !== "bwrap") return tools;
  const recorded = init.task.sandbox_limits;
  const limits =
    recorded === undefined
      ? DEFAULT_SANDBOX_LIMITS
      : {
          tmpBytes: recorded.tmp_size,
          shmBytes: recorded.shm_size,
          maxProcesses: recorded.max_processes,
          maxFileBytes: recorded.max_file_size,
        };
  const description = describeBash(timeoutMs, maxOutputChars, limits);
  return tools.map((tool) => (tool.name === "bash" ? { ...tool, description } : tool));
}

function recordedSpec(name: string, tool: RecordedTool): ToolSpec {
  return {
    name,
    description: tool.description,
    ...(tool.input_schema === undefined ? {} : { inputSchema: tool.input_schema }),
  };
}

function definitionOf(spec: ToolSpec): AtifToolDefinition {
  return {
    type: "function",
    function: {
      name: spec.name,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      ...(spec.inputSchema === undefined ? {} : { parameters: spec.inputSchema }),
    },
  };
}
