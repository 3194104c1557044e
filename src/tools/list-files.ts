import type { Dirent } from "node:fs";
import { readdir, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, type Tool, ToolError } from "./define-tool.js";
import { errorCode, resolveWorkspacePath, toDisplayPath } from "./workspace-path.js";

/** Most entries one list_files call shows; huge folders (node_modules) would flood the context. */
export const MAX_LIST_ENTRIES = 1_000;

const ListFilesInputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .optional()
      .describe('Folder to list, relative to the workspace root. Default: "." (the root).'),
  })
  .strict();

const DESCRIPTION = [
  "List the entries of one folder in the workspace (not recursive), sorted by name, one per line.",
  'Folders end with "/", symbolic links show "-> target", other special files are marked',
  `(e.g. "(fifo)"); plain files are shown as they are. At most ${MAX_LIST_ENTRIES} entries are shown.`,
  "Nothing is hidden: dotfiles and .git are listed too. Use bash (find, git ls-files) to search deeper.",
].join(" ");

/** The list_files tool: a cheap look at a folder without running a shell command. */
export function createListFilesTool(): Tool {
  return defineTool({
    name: "list_files",
    description: DESCRIPTION,
    input: ListFilesInputSchema,
    async run(input, ctx) {
      const path = await resolveWorkspacePath(ctx.workspaceRoot, input.path ?? ".");
      const shown = toDisplayPath(ctx.workspaceRoot, path);
      const entries = await readFolder(path, shown);
      if (entries.length === 0) return { content: `(${shown} is empty)`, isError: false };
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const lines = await Promise.all(
        entries.slice(0, MAX_LIST_ENTRIES).map((entry) => describeEntry(path, entry)),
      );
      const left = entries.length - MAX_LIST_ENTRIES;
      if (left > 0)
        lines.push(`[... ${left} more entries not shown; list a subfolder or use bash]`);
      return { content: lines.join("\n"), isError: false };
    },
  });
}

async function readFolder(path: string, shown: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    switch (errorCode(error)) {
      case "ENOENT":
        throw new ToolError(`folder "${shown}" does not exist; list its parent to see what exists`);
      case "ENOTDIR":
        throw new ToolError(`"${shown}" is a file, not a folder; use read_file to read it`);
      case "EACCES":
        throw new ToolError(`folder "${shown}" is not readable (permission denied)`);
      default:
        throw error;
    }
  }
}

/** One listing line: `name/`, `name`, `name -> target` or `name (fifo)`. */
async function describeEntry(folder: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isFile()) return entry.name;
  if (entry.isSymbolicLink()) return describeLink(join(folder, entry.name), entry.name);
  if (entry.isFIFO()) return `${entry.name} (fifo)`;
  if (entry.isSocket()) return `${entry.name} (socket)`;
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return `${entry.name} (device)`;
  return `${entry.name} (unknown type)`;
}

async function describeLink(path: string, name: string): Promise<string> {
  const target = await readlink(path);
  try {
    const info = await stat(path);
    return `${name} -> ${target}${info.isDirectory() ? "/" : ""}`;
  } catch {
    return `${name} -> ${target} (broken link)`;
  }
}
