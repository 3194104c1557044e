import { createBashTool } from "./bash.js";
import { createCommandTool } from "./command-tool.js";
import type { CommandToolSpec } from "./command-tool-spec.js";
import type { FileToolOptions } from "./confined-open.js";
import type { Tool } from "./define-tool.js";
import { createEditFileTool } from "./edit-file.js";
import { createListFilesTool } from "./list-files.js";
import { protectFolders } from "./protected-folders.js";
import { createReadFileTool } from "./read-file.js";
import type { ShellOptions } from "./shell-command.js";
import type { ToolName } from "./tool-names.js";
import { createWriteFileTool } from "./write-file.js";

/** Per-run settings the tools need. */
export type ToolsOptions = {
  bash: ShellOptions;
  /** The task's own tools (`command_tools:`), run with the bash settings and their own timeouts. */
  commandTools?: readonly CommandToolSpec[];
  /** The run's output and run folders, which the file tools refuse. */
  protectedPaths?: readonly string[];
  /** The file tools may write under a `.git` (the task's `allow_git_changes`). */
  allowGitWrites?: boolean;
};

/**
 * Builds the built-in tools a task asks for, in the order it lists them (the order the model
 * sees), then its command tools in file order: those are offered whatever `names` holds.
 */
export function createTools(names: readonly ToolName[], options: ToolsOptions): Tool[] {
  const files: FileToolOptions = {
    allowGitWrites: options.allowGitWrites === true,
    ...(options.protectedPaths === undefined
      ? {}
      : { protectedFolders: protectFolders(options.protectedPaths) }),
  };
  const builtIn = names.map((name) => createTool(name, options, files));
  const commands = (options.commandTools ?? []).map((spec) =>
    createCommandTool(spec, options.bash),
  );
  return [...builtIn, ...commands];
}

function createTool(name: ToolName, options: ToolsOptions, files: FileToolOptions): Tool {
  switch (name) {
    case "bash":
      return createBashTool(options.bash);
    case "read_file":
      return createReadFileTool(files);
    case "write_file":
      return createWriteFileTool(files);
    case "edit_file":
      return createEditFileTool(files);
    case "list_files":
      return createListFilesTool(files);
    default: {
      const unknown: never = name;
      throw new Error(`unknown tool: ${String(unknown)}`);
    }
  }
}
