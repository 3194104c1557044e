import type { Dirent } from "node:fs";
import { readdir, readlink, stat } from "node:fs/promises";
import { z } from "zod";
import { fsFailure } from "./confined-entry.js";
import { type FileToolOptions, locate } from "./confined-open.js";
import { defineTool, type Tool, ToolError } from "./define-tool.js";
import { errorCode } from "./workspace-path.js";

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
export function createListFilesTool(options: FileToolOptions = {}): Tool {
  return defineTool({
    name: "list_files",
    description: DESCRIPTION,
    input: ListFilesInputSchema,
    async run(input, ctx) {
      const scope = { ...options, root: ctx.workspaceRoot };
      const located = await locate(scope, input.path ?? ".", "list");
      try {
        const { info, shown } = located;
        if (info === undefined) {
          throw new ToolError(
            `folder "${shown}" does not exist; list its parent to see what exists`,
          );
        }
        if (!info.isDirectory()) {
          throw new ToolError(`"${shown}" is a file, not a folder; use read_file to read it`);
        }
        const folder = await located.openAsFolder();
        try {
          return await listFolder(folder.path, shown);
        } finally {
          await folder.close();
        }
      } finally {
        await located.close();
      }
    },
  });
}

/** The listing of the open folder `path` names (a `/proc/self/fd` path on Linux). */
async function listFolder(path: string, shown: string) {
  const entries = await readFolder(path, shown);
  if (entries.length === 0) return { content: `(${shown} is empty)`, isError: false };
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = await Promise.all(
    entries.slice(0, MAX_LIST_ENTRIES).map((entry) => describeEntry(path, entry)),
  );
  const left = entries.length - MAX_LIST_ENTRIES;
  if (left > 0) lines.push(`[... ${left} more entries not shown; list a subfolder or use bash]`);
  return { content: lines.join("\n"), isError: false };
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
        throw fsFailure(error, shown, "listed");
    }
  }
}

/** One listing line: `name/`, `name`, `name -> target` or `name (fifo)`. */
async function describeEntry(folder: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isFile()) return entry.name;
  if (entry.isSymbolicLink()) return describeLink(`${folder}/${entry.name}`, entry.name);
  if (entry.isFIFO()) return `${entry.name} (fifo)`;
  if (entry.isSocket()) return `${entry.name} (socket)`;
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return `${entry.name} (device)`;
  return `${entry.name} (unknown type)`;
}

async function describeLink(path: string, name: string): Promise<string> {
  const target = await readlink(path).catch(() => undefined);
  if (target === undefined) return `${name} (removed while listed)`;
  try {
    const info = await stat(path);
    return `${name} -> ${target}${info.isDirectory() ? "/" : ""}`;
  } catch {
    return `${name} -> ${target} (broken link)`;
  }
}
