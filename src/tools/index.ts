import { createBashTool } from "./bash.js";
import { createCommandTool } from "./command-tool.js";
import type { CommandToolSpec } from "./command-tool-spec.js";
import type { FileToolOptions } from "./confined-open.js";
import type { Tool } from "./define-tool.js";
import { createEditFileTool } from "./edit-file.js";
import { createListFilesTool } from "./list-files.js";
import { createPlanStore, type PlanStore } from "./plan-store.js";
import { protectFolders } from "./protected-folders.js";
import { createReadFileTool } from "./read-file.js";
import type { ShellOptions } from "./shell-command.js";
import { createTodoReadTool } from "./todo-read.js";
import { createTodoWriteTool } from "./todo-write.js";
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
 * sees), then its command tools in file order: those are offered whatever `names` holds. `task`
 * is not among them: the loop makes it (it starts loops of its own), see `RunAgentOptions`.
 */
export function createTools(names: readonly ToolName[], options: ToolsOptions): Tool[] {
  const files: FileToolOptions = {
    allowGitWrites: options.allowGitWrites === true,
    ...(options.protectedPaths === undefined
      ? {}
      : { protectedFolders: protectFolders(options.protectedPaths) }),
  };
  const plans = createPlanStore();
  const builtIn = names.flatMap((name) => {
    const tool = createTool(name, options, files, plans);
    return tool === undefined ? [] : [tool];
  });
  const commands = (options.commandTools ?? []).map((spec) =>
    createCommandTool(spec, options.bash),
  );
  return [...builtIn, ...commands];
}

function createTool(
  name: ToolName,
  options: ToolsOptions,
  files: FileToolOptions,
  plans: PlanStore,
): Tool | undefined {
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
    case "todo_write":
      return createTodoWriteTool(plans);
    case "todo_read":
      return createTodoReadTool(plans);
    case "task":
      return undefined;
    default: {
      const unknown: never = name;
      throw new Error(`unknown tool: ${String(unknown)}`);
    }
  }
}
