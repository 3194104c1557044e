import { existsSync } from "node:fs";
import { join } from "node:path";
import { addAll } from "./git/index-entries.js";
import { openPrivateGitDir } from "./git/private-git-dir.js";
import { type GitTarget, runGit } from "./git/run-git.js";
import { stageWithNestedRepos } from "./nested-repos.js";
import { keepStartRules, recordStartRules } from "./start-rules.js";

/** The workspace's content at one moment: a git tree id in the run's private git dir. */
export type Snapshot = { tree: string };

/** Where to snapshot from and into. */
export type SnapshotOptions = {
  /** The folder the agent works in (from `prepareWorkspace`). */
  workspace: string;
  /** A private, bare git dir outside the workspace's own .git; created on first use. */
  gitDir: string;
  /** Absolute paths inside the workspace that are not content (a run folder inside it, in place). */
  excludePaths?: readonly string[];
};

/**
 * Records the workspace's files as a git tree, so two moments can be diffed and the content hashed.
 *
 * What counts as content:
 * - every file and symlink (as a link, never followed) with its executable bit; empty folders do not count;
 * - minus paths matched by the workspace's own .gitignore files as they were at the first
 *   snapshot (the start rules: a file tracked then stays tracked, and a new file counts unless
 *   those rules ignore it, whatever ignore files the agent wrote), and by `excludePaths`; the
 *   user's global excludes, the workspace repo's .git/info/exclude and all git config are not read;
 * - bytes exactly as on disk: .gitattributes conversions (eol, LFS and other filters) are switched off;
 * - a nested repository (a folder with its own .git, e.g. a submodule) counts as plain files; no
 *   .git folder or file is ever included.
 * The index lives in the git dir (`<gitDir>/index`) and speeds up later snapshots. Take one
 * snapshot at a time per git dir (git locks the index).
 */
export async function snapshotWorkspace(options: SnapshotOptions): Promise<Snapshot> {
  const target = await openPrivateGitDir(options);
  const isFirst = !existsSync(join(target.gitDir, "index"));
  const tree = await writeTree(await stageWorkspace(options));
  if (isFirst) await recordStartRules(target, tree);
  return { tree };
}

/**
 * Reads the workspace into the git dir's index, as a snapshot counts it, without writing its tree:
 * enough to diff it against an earlier snapshot (`diffSnapshots` without `after`).
 */
export async function stageWorkspace(options: SnapshotOptions): Promise<GitTarget> {
  const target = await openPrivateGitDir(options);
  if ((await stageAll(target)) === "met-nested-repos") await stageWithNestedRepos(target);
  await keepStartRules(target);
  return target;
}

/** A stable content hash for the snapshot: equal hashes mean byte-identical workspace content. */
export function contentHash(snapshot: Snapshot): string {
  return `git-tree:${snapshot.tree}`;
}

async function writeTree(target: GitTarget): Promise<string> {
  return (await runGit(target, ["write-tree"])).trim();
}

/**
 * `add --all --verbose`, telling whether it met a nested repository: it prints "add '<path>'" or
 * "remove '<path>'" per entry, and a nested repository's path (recorded as a gitlink) ends in "/";
 * a file name holding "/'" and a line break can only make this too careful. It fails on a nested
 * repository without a commit; the careful path then adds again and reports any other failure.
 */
async function stageAll(target: GitTarget): Promise<"staged" | "met-nested-repos"> {
  try {
    return (await addAll(target)).includes("/'\n") ? "met-nested-repos" : "staged";
  } catch {
    return "met-nested-repos";
  }
}
