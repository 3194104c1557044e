import { existsSync } from "node:fs";
import { join } from "node:path";
import { addAll, listIgnoredEntries, removeEntries } from "./index-entries.js";
import { stageWithNestedRepos } from "./nested-repos.js";
import { openPrivateGitDir } from "./private-git-dir.js";
import { type GitTarget, runGit } from "./run-git.js";

/** The workspace's content at one moment: a git tree id in the run's private git dir. */
export type Snapshot = { tree: string };

/** Where to snapshot from and into. */
export type SnapshotOptions = {
  /** The folder the agent works in (from `prepareWorkspace`). */
  workspace: string;
  /** A private, bare git dir outside the workspace's own .git, e.g. `<runDir>/git`; created on first use. */
  gitDir: string;
  /** Absolute paths inside the workspace that are not content (a run folder inside it, in place). */
  excludePaths?: readonly string[];
  /**
   * The snapshot last taken into this git dir, if any. Its tree is what the index holds, so when
   * `add` stages nothing and no entry became ignored, it is the answer and `write-tree` is skipped.
   */
  previous?: Snapshot;
  /**
   * Called once the files have been read into the index: from then on they may change without
   * changing this snapshot, whose tree is still being written (the agent's tools wait only this long).
   */
  onStaged?: () => void;
};

/**
 * Records the workspace's files as a git tree, so two moments can be diffed and the content hashed.
 *
 * What counts as content:
 * - every file and symlink (as a link, never followed) with its executable bit; empty folders do not count;
 * - minus paths matched by the workspace's own .gitignore files, and by `excludePaths`; the user's
 *   global excludes, the workspace repo's .git/info/exclude and all git config are not read;
 * - bytes exactly as on disk: .gitattributes conversions (eol, LFS and other filters) are switched off;
 * - a nested repository (a folder with its own .git, e.g. a submodule) counts as plain files; no
 *   .git folder or file is ever included.
 * The index lives in the git dir (`<gitDir>/index`) and speeds up later snapshots. Take one
 * snapshot at a time per git dir (git locks the index).
 *
 * Usually this is two git calls (`add`, `write-tree`), plus the ignore check beside `add` on a
 * reused index (and no `write-tree` when nothing changed since `previous`); the careful path for
 * nested repositories runs only when `add` meets one.
 */
export async function snapshotWorkspace(options: SnapshotOptions): Promise<Snapshot> {
  const target = openPrivateGitDir(options);
  const onStaged = options.onStaged ?? (() => {});
  // A fresh index holds nothing an ignore rule could match: `add` reads all there is.
  if (!existsSync(join(target.gitDir, "index"))) {
    if ((await stageAll(target)) === "met-nested-repos") await stageWithNestedRepos(target);
    onStaged();
    return { tree: await writeTree(target) };
  }
  // A reused index: the ignore check runs beside `add`. It finds the same entries before or after
  // the add (`add` never stages an ignored file, and keeps the tracked ones a rule now matches),
  // and it is needed even when `add` stages nothing: an ignored .gitignore can change unseen.
  // Both settle before either failure is thrown, so no git process outlives the snapshot.
  const [stagedResult, ignoredResult] = await Promise.allSettled([
    stageAll(target),
    listIgnoredEntries(target),
  ]);
  if (stagedResult.status === "rejected") throw stagedResult.reason;
  if (stagedResult.value === "met-nested-repos") {
    await stageWithNestedRepos(target);
    onStaged();
    return { tree: await writeTree(target) };
  }
  if (ignoredResult.status === "rejected") throw ignoredResult.reason;
  onStaged();
  const ignored = ignoredResult.value;
  if (ignored.length > 0) await removeEntries(target, ignored);
  else if (stagedResult.value === "unchanged" && options.previous !== undefined) {
    return options.previous;
  }
  return { tree: await writeTree(target) };
}

/** A stable content hash for the snapshot: equal hashes mean byte-identical workspace content. */
export function contentHash(snapshot: Snapshot): string {
  return `git-tree:${snapshot.tree}`;
}

async function writeTree(target: GitTarget): Promise<string> {
  return (await runGit(target, ["write-tree"])).trim();
}

/**
 * `add --all --verbose`, telling whether it staged anything and whether it met a nested repository. It prints "add '<path>'" or
 * "remove '<path>'" per entry, and a nested repository's path (recorded as a gitlink) ends in "/";
 * a file name holding "/'" and a line break can only make this too careful. It fails on a nested
 * repository without a commit; the careful path then adds again and reports any other failure.
 */
async function stageAll(target: GitTarget): Promise<"unchanged" | "staged" | "met-nested-repos"> {
  let printed: Buffer;
  try {
    printed = await addAll(target);
  } catch {
    return "met-nested-repos";
  }
  if (printed.length === 0) return "unchanged";
  return printed.includes("/'\n") ? "met-nested-repos" : "staged";
}
