import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { isSameOrInside, resolveRealPath } from "../real-path.js";
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
 * Creates the bare git dir on first use and writes its info/attributes and info/exclude, so
 * snapshots never touch the workspace's own .git. The git dir itself is excluded when it sits
 * inside the workspace. The calls are synchronous: a few small metadata operations, which in a
 * batch would otherwise wait behind other tasks' copies in the thread pool.
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
  const info = join(gitDir, "info");
  writeIfChanged(info, "attributes", RAW_BYTES_ATTRIBUTES);
  writeIfChanged(info, "exclude", excluded.map((line) => `${line}\n`).join(""));
  return { gitDir, workTree };
}

/**
 * Writes `folder/name` unless it already holds `content`. Every snapshot of a task, and every task
 * of a batch lane, opens the same git dir with the same files: rewriting one truncates it, and
 * on a disk mounted with `discard` that took 0.2-1 ms each time, on the event loop.
 */
function writeIfChanged(folder: string, name: string, content: string): void {
  const file = join(folder, name);
  try {
    if (readFileSync(file, "utf8") === content) return;
  } catch {
    mkdirSync(folder, { recursive: true }); // not there yet (or unreadable: the write says why)
  }
  writeFileSync(file, content);
}

function realPathOf(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch (error) {
    throw new Error(`workspace folder ${workspace} does not exist`, { cause: error });
  }
}

/**
 * What git needs to see a repository (HEAD, objects/ and refs/), made directly: `git init` would
 * cost a process and a dozen more files (refs/heads, refs/tags, hooks, probes) that snapshots
 * never use, as they write no refs. Most settings are pinned on the command line (run-git.ts);
 * the two that depend on the file system are probed here as `git init` does, and written to
 * `config` only when they apply. HEAD comes last: it marks the folder as done.
 */
function createGitDir(gitDir: string): void {
  for (const name of ["objects", "refs"]) mkdirSync(join(gitDir, name), { recursive: true });
  const head = join(gitDir, "HEAD.tmp");
  writeFileSync(head, "ref: refs/heads/snapshots\n");
  const config = fileSystemConfig(gitDir, head);
  if (config !== "") writeFileSync(join(gitDir, "config"), config);
  renameSync(head, join(gitDir, "HEAD"));
}

/**
 * `[core]` settings for the git dir's file system, as `git init` probes them: a case-insensitive
 * one (macOS, Windows) needs `ignorecase`, or a case-only rename shows up as a second file and
 * ignore rules match unlike the user's own git; on macOS, file names read back decomposed need
 * `precomposeunicode`. `probe` is a file that exists in `gitDir`, named in upper case.
 */
function fileSystemConfig(gitDir: string, probe: string): string {
  const settings: string[] = [];
  if (existsSync(join(gitDir, basename(probe).toLowerCase()))) settings.push("ignorecase = true");
  if (process.platform === "darwin") {
    const composed = join(gitDir, "\u00e4");
    writeFileSync(composed, "");
    if (existsSync(join(gitDir, "a\u0308"))) settings.push("precomposeunicode = true");
    rmSync(composed, { force: true });
  }
  return settings.length === 0 ? "" : `[core]\n${settings.map((line) => `\t${line}\n`).join("")}`;
}

/** An anchored gitignore pattern matching exactly one workspace-relative path. */
function toExcludePattern(rel: string): string {
  if (/[\n\r]/.test(rel)) {
    throw new Error(`cannot exclude a path with a line break: ${JSON.stringify(rel)}`);
  }
  const posix = rel.split(sep).join("/");
  return `/${posix.replace(/[\\*?[]/g, "\\$&").replace(/ +$/, (spaces) => "\\ ".repeat(spaces.length))}`;
}
