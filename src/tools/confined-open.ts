import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { isSameOrInside } from "../fs/real-path.js";
import {
  type Folder,
  type Located,
  makeFolder,
  makeLocated,
  OPEN_FOLDER,
} from "./confined-entry.js";
import { danglingLink, explain, type Intent, missing, notAFolder } from "./confined-errors.js";
import { ToolError } from "./define-tool.js";
import {
  folderHolding,
  foldersToRefuse,
  folderWithIdentity,
  gitWriteError,
  isUnderGit,
  type ProtectedFolder,
  protectedFolderError,
} from "./protected-folders.js";
import { errorCode, lexicalPath, toDisplayPath } from "./workspace-path.js";

// Race-free workspace confinement for the file tools. A path is walked one name at a time from
// the workspace root, each folder held open: on Linux every step goes through
// `/proc/self/fd/<folder>/<name>`, which the kernel resolves to the folder already open, not by
// its path, so a link swapped in by a concurrent process cannot redirect it. Every name is opened
// with O_NOFOLLOW; a symbolic link is read and its target walked again from the root (so links
// that stay inside keep working), and one that leads outside is refused. Writes create their
// temporary file in the pinned folder and rename it there. See docs/security.md.

/** Where the file tools may act: the workspace, less agent-run's own folders inside it. */
export type FileScope = {
  /** The workspace root (its real path is used). */
  root: string;
  /** agent-run's folders, which the tools refuse (see `protectFolders`). */
  protectedFolders?: readonly ProtectedFolder[];
  /** Writes may go under a `.git` (the task's `allow_git_changes`); refused by default. */
  allowGitWrites?: boolean;
  /**
   * "fd": walk through `/proc/self/fd` (race-free); "path": walk by real paths, each name still
   * opened with O_NOFOLLOW (a link swapped between two steps can redirect a later one). Default:
   * "fd" where `/proc/self/fd` works (Linux), else "path".
   */
  mode?: "fd" | "path";
};

export type { Located } from "./confined-entry.js";

/** What the file tools are created with: agent-run's folders they refuse. */
export type FileToolOptions = Pick<FileScope, "protectedFolders" | "allowGitWrites">;

export type { Intent } from "./confined-errors.js";

/** Symbolic links followed for one path at most, as Linux does (MAXSYMLINKS). */
const MAX_LINK_HOPS = 40;

/** Walks begun again for one path at most, when a concurrent process changed it under a walk. */
const MAX_RETRIES = 100;

type Scope = {
  realRoot: string;
  root: Folder;
  mode: "fd" | "path";
  intent: Intent;
  /** The input, quoted, for messages. */
  input: string;
  guarded: ProtectedFolder[];
  allowGitWrites: boolean;
};

/**
 * Finds what `userPath` names inside the workspace, walking from the root through held-open
 * folders and following symbolic links that stay inside. With intent "write" missing folders are
 * created on the way. Throws `ToolError` for NUL bytes, escapes (`..`, outside absolute paths,
 * links leading out), dangling links, protected folders and missing or non-folder parents.
 */
export async function locate(scope: FileScope, userPath: string, intent: Intent): Promise<Located> {
  const realRoot = await realpath(scope.root);
  const { shown: input, lexical } = lexicalPath(realRoot, userPath);
  const handle = await open(realRoot, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const mode = scope.mode ?? (await defaultMode(handle, realRoot));
    const root = makeFolder(handle, [], realRoot, mode);
    const guarded = foldersToRefuse(realRoot, scope.protectedFolders ?? []);
    const allowGitWrites = scope.allowGitWrites === true;
    const state: Scope = { realRoot, root, mode, intent, input, guarded, allowGitWrites };
    return await follow(state, partsOf(realRoot, lexical));
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Walks `parts` from the root, again from the root after each link, until it names something. */
async function follow(scope: Scope, start: string[]): Promise<Located> {
  let parts = start;
  // parts[0, mustExist) come from a link's target: a link whose target is missing is refused.
  let mustExist = 0;
  let hops = 0;
  let retries = 0;
  for (;;) {
    const step = await walk(scope, parts, mustExist);
    if ("located" in step) return step.located;
    if (step.link === undefined) {
      // The path changed under the walk (a concurrent process): walk it again, a few times.
      if (++retries > MAX_RETRIES) {
        throw new ToolError(`path ${scope.input} kept changing while it was opened; try again`);
      }
      continue;
    }
    if (++hops > MAX_LINK_HOPS) {
      throw new ToolError(`path ${scope.input} has too many levels of symbolic links`);
    }
    const { index, target } = step.link;
    const prefix = await targetParts(scope, parts.slice(0, index), target);
    mustExist = Math.max(prefix.length, prefix.length + mustExist - index - 1);
    parts = [...prefix, ...parts.slice(index + 1)];
  }
}

type Step = { located: Located } | { link: { index: number; target: string } | undefined };

/** One walk from the root: the thing named, a link met on the way, or a retry (`link` undefined). */
async function walk(scope: Scope, parts: readonly string[], mustExist: number): Promise<Step> {
  let folder = scope.root;
  let handedOver = false;
  try {
    for (const [index, name] of parts.entries()) {
      const here = parts.slice(0, index + 1);
      refuseGuardedPath(scope, here);
      const path = folder.entry(name);
      let handle = index === parts.length - 1 ? undefined : await openSubfolder(scope, path);
      if (handle === undefined) {
        const info = await lstatOrMissing(scope, path);
        if (info?.isSymbolicLink() === true) {
          const target = await readlink(path).catch(() => undefined);
          return { link: target === undefined ? undefined : { index, target } };
        }
        if (info === undefined && index < mustExist) throw danglingLink(scope);
        if (index === parts.length - 1) {
          const located = locatedIn(scope, folder, here, info);
          handedOver = true;
          return { located };
        }
        if (info?.isDirectory() === true) return { link: undefined }; // a folder a moment ago
        if (info !== undefined) throw notAFolder(scope, parts);
        if (scope.intent !== "write") throw missing(scope, parts);
        await makeFolderEntry(scope, path);
        handle = await openSubfolder(scope, path);
        if (handle === undefined) return { link: undefined };
      }
      const next = makeFolder(handle, here, scope.realRoot, scope.mode);
      if (folder !== scope.root) await folder.handle.close();
      folder = next;
      await refuseGuardedFolder(scope, folder);
    }
    const located = locatedIn(scope, folder, [], await folder.handle.stat());
    handedOver = true;
    return { located };
  } finally {
    if (!handedOver && folder !== scope.root) await folder.handle.close();
  }
}

function locatedIn(
  scope: Scope,
  folder: Folder,
  parts: readonly string[],
  info: Stats | undefined,
): Located {
  const hit = info === undefined ? undefined : folderWithIdentity(scope.guarded, info);
  if (hit !== undefined) throw guardedError(scope, hit);
  return makeLocated({
    ...scope,
    folder,
    parts,
    info,
    guard: (opened) => refuseGuardedFolder(scope, opened),
  });
}

/** Opens `path` as a folder without following a link; undefined when it is not one (or missing). */
async function openSubfolder(scope: Scope, path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, OPEN_FOLDER);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") return undefined;
    throw explain(error, scope);
  }
}

/** The parts a link's target names, from the root; a target outside the workspace is refused. */
async function targetParts(
  scope: Scope,
  base: readonly string[],
  target: string,
): Promise<string[]> {
  const { realRoot } = scope;
  const wanted = isAbsolute(target) ? normalize(target) : join(realRoot, ...base, target);
  if (isSameOrInside(wanted, realRoot)) return partsOf(realRoot, wanted);
  // Outside as written (an absolute target through another path to the root, or `..` out and
  // back in): its real path only says where to walk; the walk from the root does the checking.
  const real = await realpath(wanted).catch(() => undefined);
  if (real !== undefined && isSameOrInside(real, realRoot)) return partsOf(realRoot, real);
  if (real === undefined && (await lstatOrMissing(scope, wanted)) === undefined) {
    throw danglingLink(scope);
  }
  throw new ToolError(
    `path ${scope.input} leads through a symbolic link to outside the workspace; use a path inside the workspace`,
  );
}

/** Creates the missing folder `path` (a racing creation is fine: the walk opens what is there). */
async function makeFolderEntry(scope: Scope, path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (error) {
    // Made by someone else meanwhile, or its folder went: the walk opens what is there, or retries.
    if (errorCode(error) === "EEXIST" || errorCode(error) === "ENOENT") return;
    throw explain(error, scope);
  }
}

function refuseGuardedPath(scope: Scope, parts: readonly string[]): void {
  // Every walk, a link's target included, passes here: a link to .git/hooks is refused too.
  const changes = scope.intent === "write" || scope.intent === "edit";
  if (changes && !scope.allowGitWrites && isUnderGit(parts)) {
    throw gitWriteError(scope.input);
  }
  const hit = folderHolding(scope.guarded, join(scope.realRoot, ...parts));
  if (hit !== undefined) throw guardedError(scope, hit);
}

/** By identity too: a protected folder moved elsewhere in the workspace is still refused. */
async function refuseGuardedFolder(scope: Scope, folder: Folder): Promise<void> {
  if (!scope.guarded.some((guarded) => guarded.ino !== undefined)) return;
  const hit = folderWithIdentity(scope.guarded, await folder.handle.stat());
  if (hit !== undefined) throw guardedError(scope, hit);
}

function guardedError(scope: Scope, hit: ProtectedFolder): ToolError {
  return protectedFolderError(scope.input, toDisplayPath(scope.realRoot, hit.path));
}

async function lstatOrMissing(scope: Scope, path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw explain(error, scope);
  }
}

let fdModeWorks: boolean | undefined;

/** "fd" when `/proc/self/fd/<n>` is the open folder itself (checked once), else "path". */
async function defaultMode(handle: FileHandle, realRoot: string): Promise<"fd" | "path"> {
  if (fdModeWorks === undefined) {
    const [viaProc, viaPath] = await Promise.all([
      stat(`/proc/self/fd/${handle.fd}`).catch(() => undefined),
      stat(realRoot),
    ]);
    fdModeWorks =
      process.platform === "linux" &&
      viaProc !== undefined &&
      viaProc.ino === viaPath.ino &&
      viaProc.dev === viaPath.dev;
  }
  return fdModeWorks ? "fd" : "path";
}

function partsOf(root: string, path: string): string[] {
  const rel = relative(root, path);
  return rel === "" ? [] : rel.split(sep);
}
