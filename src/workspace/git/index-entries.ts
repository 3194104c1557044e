import { type GitTarget, runGitBytes } from "./run-git.js";

/**
 * Settings for `add`: every non-empty file goes into one pack per call instead of a loose object
 * file each (a file, and often a folder, per blob: slow on many file systems), compressed at
 * level 1 as loose objects are by default (level 6 cost ~10% more CPU for a fresh snapshot).
 * Only for `add`: a diff would take every file above the threshold for binary.
 */
const ADD_CONFIG = ["core.bigFileThreshold=0", "pack.compression=1"];

/**
 * `add --all --verbose`: stages every change in the work tree (new, modified, deleted, mode),
 * leaving out ignored files, and prints "add '<path>'" or "remove '<path>'" for each, as is.
 */
export function addAll(target: GitTarget): Promise<Buffer> {
  return runGitBytes(target, ["add", "--all", "--verbose"], { config: ADD_CONFIG });
}

/** Gitlink entries (mode 160000: what `add` records for a nested repository), as NUL-terminated paths. */
export async function listGitlinks(target: GitTarget): Promise<Buffer> {
  const staged = await runGitBytes(target, ["ls-files", "-z", "--stage"]);
  const gitlinks: Buffer[] = [];
  // Records: "<mode> <id> <stage>\t<path>\0"; paths stay bytes (they need not be UTF-8).
  for (let start = 0; start < staged.length; ) {
    const end = staged.indexOf(0, start);
    const record = staged.subarray(start, end === -1 ? staged.length : end + 1);
    if (record.toString("latin1", 0, 7) === "160000 ") {
      gitlinks.push(record.subarray(record.indexOf("\t") + 1));
    }
    start = record.length + start;
  }
  return Buffer.concat(gitlinks);
}

/** Removes the NUL-terminated `paths` from the index; paths not in it are skipped. */
export async function removeEntries(target: GitTarget, paths: Buffer): Promise<void> {
  if (paths.length === 0) return;
  await runGitBytes(target, ["update-index", "-z", "--force-remove", "--stdin"], { input: paths });
}

/** NUL-terminated records (git's `-z` output) as separate byte strings; paths need not be UTF-8. */
export function splitNul(output: Buffer): Buffer[] {
  const records: Buffer[] = [];
  for (let start = 0; start < output.length; ) {
    const end = output.indexOf(0, start);
    const stop = end === -1 ? output.length : end;
    if (stop > start) records.push(output.subarray(start, stop));
    start = stop + 1;
  }
  return records;
}

/** Paths as git's `--stdin -z` options read them: each one NUL-terminated. */
export function joinNul(paths: readonly Buffer[]): Buffer {
  return Buffer.concat(paths.flatMap((path) => [path, Buffer.from([0])]));
}
