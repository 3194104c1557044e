import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isSameOrInside, realPathOr } from "../fs/real-path.js";

/** Folders the walk reads at most; past it, it fails rather than miss a `.git`. */
export const MAX_WALKED_FOLDERS = 200_000;

/** Folders read at once: enough to keep the thread pool busy, few enough to leave it to others. */
const PARALLEL_READS = 8;

/** Names the walk does not go into: git's own folders, and dependency trees (big, and no one's repository). */
const NOT_WALKED: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * What the sandbox binds read-only in an in-place workspace: every `.git` in it (see
 * `findGitEntries`) and the output folders that are strictly inside it (the batch's `--out` and
 * the task's run folder), so that a command can change neither a repository (its hooks and config
 * run later, outside the sandbox) nor what agent-run records.
 */
export async function sandboxReadOnlyPaths(
  workspace: string,
  outputFolders: readonly string[],
  maxFolders = MAX_WALKED_FOLDERS,
): Promise<string[]> {
  const root = realPathOr(workspace);
  const outputs = outputFolders
    .map((folder) => realPathOr(folder))
    .filter((folder) => folder !== root && isSameOrInside(folder, root));
  return [...(await findGitEntries(root, maxFolders)), ...new Set(outputs)];
}

/**
 * The absolute paths of every entry named `.git` (a folder, a worktree's or submodule's file, a
 * symlink) under `root`, nested repositories' included. Symlinks are not followed, and `.git` and
 * `node_modules` folders are not walked. Unreadable folders are skipped: whoever runs agent-run
 * cannot read them, and neither can its commands. Throws once more than `maxFolders` folders have
 * been read, naming the fix.
 */
export function findGitEntries(root: string, maxFolders = MAX_WALKED_FOLDERS): Promise<string[]> {
  const found: string[] = [];
  const queue = [root];
  let read = 0;
  let reading = 0;
  return new Promise((resolve, reject) => {
    const pump = () => {
      while (reading < PARALLEL_READS && queue.length > 0) {
        const folder = queue.pop() as string;
        read += 1;
        if (read > maxFolders) {
          queue.length = 0;
          reject(tooManyFolders(root, maxFolders));
          return;
        }
        reading += 1;
        void readFolder(folder).then((entries) => {
          reading -= 1;
          for (const entry of entries) {
            const path = join(folder, entry.name);
            if (entry.name === ".git") found.push(path);
            else if (entry.isDirectory() && !NOT_WALKED.has(entry.name)) queue.push(path);
          }
          if (read <= maxFolders) pump();
        });
      }
      if (reading === 0 && queue.length === 0) resolve(found.sort());
    };
    pump();
  });
}

function tooManyFolders(root: string, maxFolders: number): Error {
  return new Error(
    `the workspace ${root} has more than ${maxFolders.toLocaleString("en-US")} folders (outside node_modules), too many to find every .git in it and make it read-only in the sandbox; run on a copy (without --in-place), which has no .git, or without the sandbox`,
  );
}

async function readFolder(folder: string): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}
