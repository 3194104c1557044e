import type { ToolUseBlock } from "../model/model-client.js";
import { type Tool, ToolError, type ToolResult } from "../tools/define-tool.js";

/** Runs one tool call; any throw, or an unknown tool, becomes an error result for the model. */
export async function runToolCall(
  call: ToolUseBlock,
  toolsByName: ReadonlyMap<string, Tool>,
  workspaceRoot: string,
  signal: AbortSignal,
): Promise<ToolResult> {
  const tool = toolsByName.get(call.name);
  if (tool === undefined) {
    const known = [...toolsByName.keys()].join(", ") || "none";
    return {
      content: `unknown tool "${call.name}"; the tools you have are: ${known}`,
      isError: true,
    };
  }
  try {
    return await tool.execute(call.input, { workspaceRoot, signal });
  } catch (error) {
    if (error instanceof ToolError) return { content: error.message, isError: true };
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${call.name} failed: ${message}`, isError: true };
  }
}
