import { taskToolSpec } from "../agent/subagent.js";
import { DEFAULT_BASH_TIMEOUT_MS, DEFAULT_SUBAGENTS } from "../task/schema.js";
import { createTools } from "../tools/index.js";
import { mcpToolName } from "../tools/mcp-tools.js";
import { TOOL_NAMES } from "../tools/tool-names.js";
import type { AtifToolDefinition, JsonObject } from "./atif-types.js";
import type { ExportInit, RecordedTool } from "./export-init.js";

// ATIF's `tool_definitions` (OpenAI's function-calling shape) of the tools an agent was offered:
// the built-in ones as src/tools defines them, for the run's bash timeout and output cap; command
// tools and MCP tools as the init line recorded them.

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

/** The built-in tools among `names` (`task` aside), as the run made them; no sandbox: none runs. */
function builtInTools(init: ExportInit, names: readonly string[]): ToolSpec[] {
  const bash = init.task.bash;
  return createTools(
    TOOL_NAMES.filter((name) => names.includes(name)),
    {
      bash: {
        timeoutMs: bash?.timeout_ms ?? DEFAULT_BASH_TIMEOUT_MS,
        env: {},
        maxOutputChars: bash?.max_output,
      },
    },
  );
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
