import { includeNestedRepos } from "./nested-repos.js";
import { openPrivateGitDir } from "./private-git-dir.js";
import { type GitTarget, runGit, runGitBytes } from "./run-git.js";

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
 */
export async function snapshotWorkspace(options: SnapshotOptions): Promise<Snapshot> {
  const target = await openPrivateGitDir(options);
  await includeNestedRepos(target);
  await runGit(target, ["add", "--all"]);
  await dropIgnoredEntries(target);
  const tree = (await runGit(target, ["write-tree"])).trim();
  return { tree };
}

/** A stable content hash for the snapshot: equal hashes mean byte-identical workspace content. */
export function contentHash(snapshot: Snapshot): string {
  return `git-tree:${snapshot.tree}`;
}

/**
 * `add --all` keeps indexed files that a new .gitignore rule now matches; removing them makes the
 * tree depend on the current content and rules only, not on what earlier snapshots saw.
 */
async function dropIgnoredEntries(target: GitTarget): Promise<void> {
  const listIgnored = ["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"];
  const ignored = await runGitBytes(target, listIgnored);
  if (ignored.length === 0) return;
  await runGit(target, ["update-index", "-z", "--force-remove", "--stdin"], { input: ignored });
}
