import { addAll, listGitlinks, removeEntries, splitNul } from "./git/index-entries.js";
import { type GitTarget, runGit, runGitBytes } from "./git/run-git.js";

/** Index entry that makes git see a folder as already tracked; `add -A` drops it (no such file). */
const PLACEHOLDER_NAME = ".agent-run-nested-repo";

/** The end of a placeholder's `--index-info` line, after the folder's path. */
const PLACEHOLDER_ENTRY_TAIL = Buffer.from(`${PLACEHOLDER_NAME}\0`);

/** The byte that ends a nested repository's entry in `ls-files --others`. */
const SLASH = "/".charCodeAt(0);

/** Nesting depth after which we give up (a repo inside a repo inside a repo …). */
const MAX_NESTING_DEPTH = 64;

/**
 * Stages the workspace when `add --all` met nested repositories (folders with their own .git:
 * clones, submodules), so their files are snapshotted like any others instead of as gitlinks.
 * The gitlinks a plain `add` left are removed first. Git skips an untracked folder that holds a
 * repository, but walks into a folder that already has index entries; so each one found gets a
 * placeholder entry, round after round for repos nested deeper, before adding everything again.
 * Their .git entries are never added (git skips that name everywhere).
 */
export async function stageWithNestedRepos(target: GitTarget): Promise<void> {
  await removeEntries(target, await listGitlinks(target));
  await includeNestedRepos(target);
  await addAll(target);
}

/**
 * Gives every nested repository's folder a placeholder entry, so `add` walks into it. Paths stay
 * bytes throughout: a folder name that is not UTF-8 must still match.
 */
async function includeNestedRepos(target: GitTarget): Promise<void> {
  const found = new Set<string>();
  let emptyBlob: string | undefined;
  for (let depth = 0; depth < MAX_NESTING_DEPTH; depth++) {
    const nested = (await listUntracked(target)).filter(
      (path) => path.at(-1) === SLASH && !found.has(path.toString("latin1")),
    );
    if (nested.length === 0) return;
    emptyBlob ??= (await runGit(target, ["hash-object", "-w", "--stdin"], { input: "" })).trim();
    const placeholder = (dir: Buffer) =>
      Buffer.concat([Buffer.from(`100644 ${emptyBlob}\t`), dir, PLACEHOLDER_ENTRY_TAIL]);
    await runGit(target, ["update-index", "-z", "--index-info"], {
      input: Buffer.concat(nested.map(placeholder)),
    });
    for (const dir of nested) found.add(dir.toString("latin1"));
  }
  throw new Error(`nested git repositories go deeper than ${MAX_NESTING_DEPTH} levels`);
}

/** Untracked, not ignored paths; a nested repository shows up as one entry ending in "/". */
async function listUntracked(target: GitTarget): Promise<Buffer[]> {
  return splitNul(await runGitBytes(target, ["ls-files", "-z", "--others", "--exclude-standard"]));
}
