import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { isSameOrInside, resolveRealPath } from "../../fs/real-path.js";
import { type GitTarget, runGit } from "./run-git.js";

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
 * Creates the bare git dir on first use (no template: no hooks, no sample files) with its
 * info/attributes and info/exclude, so snapshots never touch the workspace's own .git. The git
 * dir itself is excluded when it sits inside the workspace; so are `excludePaths`, as given when
 * the git dir is created.
 */
export async function openPrivateGitDir(options: PrivateGitDirOptions): Promise<GitTarget> {
  const workTree = realPathOf(options.workspace);
  mkdirSync(options.gitDir, { recursive: true });
  const gitDir = realpathSync(options.gitDir);
  if (existsSync(join(gitDir, "HEAD"))) return { gitDir, workTree };
  await runGit({ gitDir }, ["init", "--bare", "--quiet", "--template="]);
  const excluded = [gitDir, ...(options.excludePaths ?? []).map(resolveRealPath)]
    .filter((path) => path !== workTree && isSameOrInside(path, workTree))
    .map((path) => `${toExcludePattern(relative(workTree, path))}\n`);
  mkdirSync(join(gitDir, "info"), { recursive: true });
  writeFileSync(join(gitDir, "info", "attributes"), RAW_BYTES_ATTRIBUTES);
  writeFileSync(join(gitDir, "info", "exclude"), excluded.join(""));
  return { gitDir, workTree };
}

function realPathOf(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch (error) {
    throw new Error(`workspace folder ${workspace} does not exist`, { cause: error });
  }
}

/** An anchored gitignore pattern matching exactly one workspace-relative path. */
function toExcludePattern(rel: string): string {
  if (/[\n\r]/.test(rel)) {
    throw new Error(`cannot exclude a path with a line break: ${JSON.stringify(rel)}`);
  }
  const posix = rel.split(sep).join("/");
  return `/${posix.replace(/[\\*?[]/g, "\\$&").replace(/ +$/, (spaces) => "\\ ".repeat(spaces.length))}`;
}
