import { type BashToolOptions, createBashTool } from "./bash.js";
import type { Tool } from "./define-tool.js";
import { createEditFileTool } from "./edit-file.js";
import { createListFilesTool } from "./list-files.js";
import { createReadFileTool } from "./read-file.js";
import type { ToolName } from "./tool-names.js";
import { createWriteFileTool } from "./write-file.js";

/** Per-run settings the tools need; only bash has any so far. */
export type ToolsOptions = {
  bash: BashToolOptions;
};

/** Builds the tools a task asks for, in the order it lists them (the order the model sees). */
export function createTools(names: readonly ToolName[], options: ToolsOptions): Tool[] {
  return names.map((name) => createTool(name, options));
}

function createTool(name: ToolName, options: ToolsOptions): Tool {
  switch (name) {
    case "bash":
      return createBashTool(options.bash);
    case "read_file":
      return createReadFileTool();
    case "write_file":
      return createWriteFileTool();
    case "edit_file":
      return createEditFileTool();
    case "list_files":
      return createListFilesTool();
    default: {
      const unknown: never = name;
      throw new Error(`unknown tool: ${String(unknown)}`);
    }
  }
}
