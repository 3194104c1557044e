import { type Dirent, readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { hasErrorCode } from "../errors.js";
import { isSameOrInside } from "../fs/real-path.js";

/** Folders the walk reads at most; past it, it fails rather than miss a `.git`. */
export const MAX_WALKED_FOLDERS = 200_000;

/** Folders read at once: enough to keep the thread pool busy, few enough to leave it to others. */
const PARALLEL_READS = 8;

const GIT = Buffer.from(".git");
/** Dependency trees: big, and no one's repository. */
const NODE_MODULES = Buffer.from("node_modules");
const SLASH = Buffer.from("/");

/**
 * Every entry named `.git` (a folder, a worktree's or submodule's file, a symlink) under `root`,
 * nested repositories' included, as byte paths (a folder name need not be UTF-8), sorted.
 * Symlinks are not followed, and `.git` and `node_modules` folders are not walked. Throws for a
 * folder it cannot read, and once more than `maxFolders` folders have been read, naming the fix.
 */
export function findGitEntries(root: string, maxFolders = MAX_WALKED_FOLDERS): Promise<Buffer[]> {
  const found: Buffer[] = [];
  const queue = [Buffer.from(root)];
  let read = 0;
  let reading = 0;
  return new Promise((resolve, reject) => {
    const pump = () => {
      while (reading < PARALLEL_READS && queue.length > 0) {
        const folder = queue.pop() as Buffer;
        read += 1;
        if (read > maxFolders) {
          queue.length = 0;
          reject(tooManyFolders(root, maxFolders));
          return;
        }
        reading += 1;
        void readFolder(folder).then((entries) => {
          reading -= 1;
          if (entries instanceof Error) {
            queue.length = 0;
            reject(entries);
            return;
          }
          for (const entry of entries) {
            const path = Buffer.concat([folder, SLASH, entry.name]);
            if (entry.name.equals(GIT)) found.push(path);
            else if (entry.isDirectory() && !entry.name.equals(NODE_MODULES)) queue.push(path);
          }
          if (read <= maxFolders) pump();
        });
      }
      if (reading === 0 && queue.length === 0) resolve(found.sort(Buffer.compare));
    };
    pump();
  });
}

function tooManyFolders(root: string, maxFolders: number): Error {
  return new Error(
    `the workspace ${root} has more than ${maxFolders.toLocaleString("en-US")} folders (outside node_modules), too many to find every .git in it; run on a copy (without --in-place), which has no .git, or on a smaller workspace`,
  );
}

/**
 * A folder's entries; none when it went meanwhile. One that cannot be read is an error: git skips
 * it too, so what changed in it could be neither listed nor snapshotted (a `chmod 000` would hide
 * the agent's changes).
 */
async function readFolder(folder: Buffer): Promise<Dirent<Buffer>[] | Error> {
  try {
    return await readdir(folder, { withFileTypes: true, encoding: "buffer" });
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return [];
    return new Error(
      `cannot read the folder ${folder.toString("utf8")} (${error instanceof Error && "code" in error ? String(error.code) : "error"}): what changed in it cannot be told`,
    );
  }
}

/**
 * The hooks folder the workspace's repository names with `core.hooksPath` in its `.git/config`
 * (husky and lefthook set one, such as `.husky/_`), when it is inside the workspace: its hooks run
 * at the next git command as much as `.git/hooks` do, and it is often git-ignored, so it is
 * listed and protected like a `.git`. Read as text (agent-run never runs git on that repository);
 * `include` files are not followed.
 */
export function configuredHooksFolder(workspace: string): string | undefined {
  let config: string;
  try {
    config = readFileSync(join(workspace, ".git", "config"), "utf8");
  } catch {
    return undefined; // no repository here, or `.git` is a file: nothing to read
  }
  let section = "";
  let value: string | undefined;
  for (const raw of config.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)[^\]]*\]/.exec(line);
    if (header?.[1] !== undefined) section = header[1].toLowerCase();
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (section === "core" && entry?.[1] !== undefined) value = unquote(entry[1]);
  }
  if (value === undefined || value === "") return undefined;
  const folder = resolve(workspace, value);
  return folder !== workspace && isSameOrInside(folder, workspace) ? folder : undefined;
}

/** A config value without its quotes and trailing comment (`"a b" ; note` → `a b`). */
function unquote(value: string): string {
  const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(value);
  if (quoted?.[1] !== undefined) return quoted[1].replace(/\\(.)/g, "$1");
  return value.replace(/\s*[;#].*$/, "").trim();
}
