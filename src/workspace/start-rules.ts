import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { joinNul, splitNul } from "./git/index-entries.js";
import { type GitTarget, runGitBytes } from "./git/run-git.js";

// The ignore rules that decide what a snapshot counts are those of the workspace at the start.
// The agent can edit, add or remove .gitignore files; were its rules used at the end, a file it
// never touched could turn into "deleted", or a file it wrote could hide from the patch and the
// checks. So the first snapshot keeps a copy of every ignore file git read (the start rules),
// in the private git dir, as a folder of the same shape; the last one judges new files by them.

/** The mirror of the start's ignore files: a work tree holding nothing else. */
const RULES_DIR = "start-rules";
/** NUL-separated paths of the ignore files in RULES_DIR. */
const RULES_LIST = "start-rules.list";
/** The start snapshot's tree id. */
const START_TREE = "start-tree";

const IGNORE_FILE = Buffer.from(".gitignore");
const SLASH = "/".charCodeAt(0);

/** Keeps the ignore files git read for the start snapshot `tree`, and the tree itself. */
export async function recordStartRules(target: GitTarget, tree: string): Promise<void> {
  const files = await listIgnoreFiles(target);
  const mirror = join(target.gitDir, RULES_DIR);
  mkdirSync(mirror, { recursive: true });
  for (const { path, bytes } of files) {
    const copy = Buffer.concat([Buffer.from(`${mirror}/`), path]);
    mkdirSync(parentOf(copy), { recursive: true });
    writeFileSync(copy, bytes);
  }
  writeFileSync(join(target.gitDir, RULES_LIST), joinNul(files.map((file) => file.path)));
  writeFileSync(join(target.gitDir, START_TREE), tree);
}

/**
 * After `add --all` staged the workspace under its current rules, makes the index hold what the
 * start rules count: files the agent made that only a new rule ignores are added, and files the
 * start rules ignore that a changed rule let in are dropped. Files tracked at the start stay
 * tracked, whatever the rules say now. Nothing to do (two cheap listings) when no ignore file
 * changed; without a start record (an older git dir), the current rules stand.
 */
export async function keepStartRules(target: GitTarget): Promise<void> {
  const startTree = readIfExists(join(target.gitDir, START_TREE))?.toString("utf8");
  if (startTree === undefined) return;
  const [ignoredNow, current] = await Promise.all([
    listIgnoredNow(target),
    listTrackedIgnoreFiles(target),
  ]);
  const files = withContent(target, [...current, ...ignoredNow.filter(isIgnoreFile)]);
  if (sameRules(target, files)) return;
  const mirror: GitTarget = { gitDir: target.gitDir, workTree: join(target.gitDir, RULES_DIR) };
  const letIn = subtract(ignoredNow, await startIgnored(mirror, ignoredNow));
  if (letIn.length > 0) {
    await runGitBytes(
      target,
      ["--literal-pathspecs", "add", "--force", "--pathspec-from-file=-", "--pathspec-file-nul"],
      { input: joinNul(letIn) },
    );
  }
  const added = splitNul(
    await runGitBytes(target, [
      "diff-index",
      "--cached",
      "--no-renames",
      "--name-only",
      "--diff-filter=A",
      "-z",
      startTree,
    ]),
  );
  const keptOut = await startIgnored(mirror, added);
  if (keptOut.length > 0) {
    await runGitBytes(target, ["update-index", "-z", "--force-remove", "--stdin"], {
      input: joinNul(keptOut),
    });
  }
}

type IgnoreFile = { path: Buffer; bytes: Buffer };

/** Every regular file named .gitignore that git reads now: tracked ones and ignored ones. */
async function listIgnoreFiles(target: GitTarget): Promise<IgnoreFile[]> {
  const [tracked, ignored] = await Promise.all([
    listTrackedIgnoreFiles(target),
    listIgnoredNow(target),
  ]);
  return withContent(target, [...tracked, ...ignored.filter(isIgnoreFile)]);
}

function listTrackedIgnoreFiles(target: GitTarget): Promise<Buffer[]> {
  return runGitBytes(target, ["ls-files", "-z", "--cached", "--", ":(glob)**/.gitignore"]).then(
    splitNul,
  );
}

/**
 * Untracked paths the current rules ignore; a folder ignored as a whole is one entry ending in
 * "/" (git does not walk into it), so `node_modules` costs one line.
 */
function listIgnoredNow(target: GitTarget): Promise<Buffer[]> {
  return runGitBytes(target, [
    "ls-files",
    "-z",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
  ]).then(splitNul);
}

/** Which of `paths` the start rules ignore (git reads them from the mirror: paths need not exist). */
async function startIgnored(mirror: GitTarget, paths: readonly Buffer[]): Promise<Buffer[]> {
  if (paths.length === 0) return [];
  const output = await runGitBytes(mirror, ["check-ignore", "--no-index", "-z", "--stdin"], {
    input: joinNul(paths),
    okExitCodes: [1],
  });
  return splitNul(output);
}

/** Whether `files` are exactly the start's ignore files, byte for byte. */
function sameRules(target: GitTarget, files: readonly IgnoreFile[]): boolean {
  const list = readIfExists(join(target.gitDir, RULES_LIST)) ?? Buffer.alloc(0);
  const start = splitNul(list);
  if (start.length !== files.length) return false;
  const mirror = `${join(target.gitDir, RULES_DIR)}/`;
  return files.every(({ path, bytes }) => {
    if (!start.some((startPath) => startPath.equals(path))) return false;
    return readIfExists(Buffer.concat([Buffer.from(mirror), path]))?.equals(bytes) === true;
  });
}

/** The content of each path that is a regular file in the work tree (git never follows a link). */
function withContent(target: GitTarget, paths: readonly Buffer[]): IgnoreFile[] {
  const root = Buffer.from(`${target.workTree ?? "."}/`);
  const files: IgnoreFile[] = [];
  for (const path of paths) {
    const full = Buffer.concat([root, path]);
    if (lstatSync(full, { throwIfNoEntry: false })?.isFile() !== true) continue;
    const bytes = readIfExists(full);
    if (bytes !== undefined) files.push({ path, bytes });
  }
  return files;
}

function isIgnoreFile(path: Buffer): boolean {
  const name = path.subarray(path.lastIndexOf(SLASH) + 1);
  return name.equals(IGNORE_FILE);
}

function subtract(paths: readonly Buffer[], remove: readonly Buffer[]): Buffer[] {
  const removed = new Set(remove.map((path) => path.toString("latin1")));
  return paths.filter((path) => !removed.has(path.toString("latin1")));
}

function readIfExists(path: string | Buffer): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function parentOf(path: Buffer): Buffer {
  return path.subarray(0, path.lastIndexOf(SLASH));
}
