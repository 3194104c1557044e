import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isSameOrInside, resolveRealPath } from "./real-path.js";
import type { GitTarget } from "./run-git.js";

/**
 * Highest-precedence attributes: store every file's bytes unchanged, whatever the workspace's own
 * .gitattributes say (no eol conversion, no clean filters such as LFS, no ident or re-encoding),
 * so a snapshot and its patch are byte-exact.
 */
const RAW_BYTES_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n";

/** What `openPrivateGitDir` needs: the workspace to read and paths inside it to leave out. */
type PrivateGitDirOptions = {
  workspace: string;
  gitDir: string;
  /** Absolute paths inside the workspace that are not part of its content (e.g. the run folder). */
  excludePaths?: readonly string[];
};

/**
 * Creates the bare git dir on first use and (re)writes its info/attributes and info/exclude,
 * so snapshots never touch the workspace's own .git. The git dir itself is excluded when it
 * sits inside the workspace. The calls are synchronous: a few small metadata operations, which
 * in a batch would otherwise wait behind other tasks' copies in the thread pool.
 */
export function openPrivateGitDir(options: PrivateGitDirOptions): GitTarget {
  const workTree = realPathOf(options.workspace);
  mkdirSync(options.gitDir, { recursive: true });
  const gitDir = realpathSync(options.gitDir);
  if (!existsSync(join(gitDir, "HEAD"))) createGitDir(gitDir);
  const extra = (options.excludePaths ?? []).map(resolveRealPath);
  const excluded = [gitDir, ...extra]
    .filter((path) => path !== workTree && isSameOrInside(path, workTree))
    .map((path) => toExcludePattern(relative(workTree, path)));
  mkdirSync(join(gitDir, "info"), { recursive: true });
  writeFileSync(join(gitDir, "info", "attributes"), RAW_BYTES_ATTRIBUTES);
  writeFileSync(join(gitDir, "info", "exclude"), excluded.map((line) => `${line}\n`).join(""));
  return { gitDir, workTree };
}

function realPathOf(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch (error) {
    throw new Error(`workspace folder ${workspace} does not exist`, { cause: error });
  }
}

/**
 * What git needs to see a repository (HEAD, objects/ and refs/), made directly. `git init` would
 * cost a process and a dozen more files (config, refs/heads, refs/tags, probes for the file
 * system's abilities) that snapshots never read: every setting they depend on is pinned on the
 * command line (run-git.ts), and they write no refs. HEAD comes last: it marks the folder as done.
 */
function createGitDir(gitDir: string): void {
  for (const name of ["objects", "refs"]) mkdirSync(join(gitDir, name), { recursive: true });
  writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/snapshots\n");
}

/** An anchored gitignore pattern matching exactly one workspace-relative path. */
function toExcludePattern(rel: string): string {
  if (/[\n\r]/.test(rel)) {
    throw new Error(`cannot exclude a path with a line break: ${JSON.stringify(rel)}`);
  }
  const posix = rel.split(sep).join("/");
  return `/${posix.replace(/[\\*?[]/g, "\\$&").replace(/ +$/, (spaces) => "\\ ".repeat(spaces.length))}`;
}
