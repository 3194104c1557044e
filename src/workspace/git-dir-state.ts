import type { BigIntStats, Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { configuredHooksFolder, findGitEntries } from "./git-entries.js";

// A snapshot never holds a `.git` (git skips the name everywhere), yet a change there matters
// more than most: a hook or `core.fsmonitor` written into the workspace's .git runs at the
// workflow's next git command, with its tokens. So every `.git` entry in the workspace (as
// `findGitEntries` finds them), and a hooks folder its config names inside it, is listed with each file's metadata at the start and at the end,
// and what differs is reported. The change time is set by the kernel on every write, rename or
// chmod and cannot be set back from user space, so a change that restores size and mtime shows.

/** One entry under a `.git` that differs between the start and the end. */
export type GitDirChange = { path: string; status: "added" | "modified" | "deleted" };

/** Workspace-relative path (bytes as latin1, to keep names that are not UTF-8) → metadata. */
export type GitDirState = Map<string, string>;

/** Entries listed at most, so a hostile tree cannot exhaust memory; past it, the state says so. */
const MAX_ENTRIES = 200_000;

const SLASH = Buffer.from("/");

/** The state of every `.git` in `workspace`, leaving out the absolute paths in `skip`. */
export async function readGitDirState(
  workspace: string,
  skip: readonly string[] = [],
): Promise<GitDirState> {
  const state: GitDirState = new Map();
  const skipped = skip.map((path) => Buffer.from(path));
  const isSkipped = (path: Buffer) =>
    skipped.some(
      (folder) =>
        path.subarray(0, folder.length).equals(folder) &&
        (path.length === folder.length || path[folder.length] === SLASH[0]),
    );
  const root = Buffer.from(workspace);
  const hooks = configuredHooksFolder(workspace);
  const pending = [
    ...(await findGitEntries(workspace)),
    ...(hooks === undefined ? [] : [Buffer.from(hooks)]),
  ].filter((path) => !isSkipped(path));
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (state.size >= MAX_ENTRIES) {
      state.set("(more entries than agent-run lists)", "");
      return state;
    }
    const info = await lstat(path, { bigint: true }).catch(() => undefined);
    if (info === undefined) continue; // gone meanwhile: not there
    state.set(relative(root, path), describe(info));
    if (!info.isDirectory()) continue;
    for (const entry of await readEntries(path))
      pending.push(Buffer.concat([path, SLASH, entry.name]));
  }
  return state;
}

/** What differs between two states, sorted by path. */
export function compareGitDirStates(before: GitDirState, after: GitDirState): GitDirChange[] {
  const changes: GitDirChange[] = [];
  for (const [path, meta] of after) {
    const was = before.get(path);
    if (was === undefined) changes.push({ path: shown(path), status: "added" });
    else if (was !== meta) changes.push({ path: shown(path), status: "modified" });
  }
  for (const path of before.keys()) {
    if (!after.has(path)) changes.push({ path: shown(path), status: "deleted" });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function readEntries(folder: Buffer): Promise<Dirent<Buffer>[]> {
  try {
    return await readdir(folder, { withFileTypes: true, encoding: "buffer" });
  } catch {
    return []; // gone or unreadable: what is under it is not listed either way
  }
}

/**
 * A file's type, mode, size, modification and change times and inode: any write alters one. A
 * folder's own times change with its entries, which are listed themselves: only its mode counts.
 */
function describe(info: BigIntStats): string {
  if (info.isDirectory()) return `d ${info.mode}`;
  const kind = info.isSymbolicLink() ? "l" : "f";
  return `${kind} ${info.mode} ${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}`;
}

function relative(root: Buffer, path: Buffer): string {
  return path.subarray(root.length + 1).toString("latin1");
}

function shown(path: string): string {
  return Buffer.from(path, "latin1").toString("utf8");
}
