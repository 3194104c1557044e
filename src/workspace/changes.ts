import { decodePatch } from "./binary-patch.js";
import { type GitTarget, runGit, runGitBytes } from "./run-git.js";
import type { Snapshot } from "./snapshot.js";

/** One file that differs between two snapshots, in the shape `git diff --numstat` reports. */
export type ChangedFile = {
  /** Relative to the workspace, forward slashes. */
  path: string;
  /** A change of type (file ↔ symlink) or of the executable bit alone counts as "modified". */
  status: "added" | "modified" | "deleted";
  /** Lines added and deleted; both 0 for a binary file. */
  additions: number;
  deletions: number;
  /** Git sees binary content (a NUL byte) on either side; `--numstat` prints "-". */
  binary: boolean;
};

/** The difference between two snapshots: per-file counts and a patch. */
export type WorkspaceChanges = {
  /** Sorted by path (byte order, as git sorts). Empty when nothing changed. */
  changedFiles: ChangedFile[];
  /** `git apply` reproduces `after` from `before` byte for byte, binaries included; "" when unchanged. */
  patch: string;
};

/** What to compare: two snapshots taken with the same workspace and git dir. */
export type DiffOptions = { workspace: string; gitDir: string; before: Snapshot; after: Snapshot };

/** Git options shared by every diff here: the two trees as they are, no renames, no helpers. */
const TREE_DIFF = ["diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv"];

/** Reports what changed between two snapshots, for the summary and the patch file. */
export async function diffSnapshots(options: DiffOptions): Promise<WorkspaceChanges> {
  const { workspace, gitDir, before, after } = options;
  const target: GitTarget = { gitDir, workTree: workspace };
  if (before.tree === after.tree) return { changedFiles: [], patch: "" };
  const [statuses, counts, patch] = await Promise.all([
    runGit(target, [...TREE_DIFF, "-z", "--name-status", before.tree, after.tree]),
    runGit(target, [...TREE_DIFF, "-z", "--numstat", before.tree, after.tree]),
    readPatch(target, before, after),
  ]);
  return { changedFiles: mergeChanges(parseStatuses(statuses), parseCounts(counts)), patch };
}

async function readPatch(target: GitTarget, before: Snapshot, after: Snapshot): Promise<string> {
  const patch = await runGitBytes(target, [
    ...TREE_DIFF,
    "--patch",
    "--binary",
    "--full-index",
    "--no-color",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    before.tree,
    after.tree,
  ]);
  return decodePatch(target, patch);
}

/** `--name-status -z`: "M\0path\0" records. */
function parseStatuses(output: string): Map<string, ChangedFile["status"]> {
  const fields = output.split("\0");
  const statuses = new Map<string, ChangedFile["status"]>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    statuses.set(fields[i + 1] ?? "", toStatus(fields[i] ?? ""));
  }
  return statuses;
}

function toStatus(letter: string): ChangedFile["status"] {
  switch (letter) {
    case "A":
      return "added";
    case "D":
      return "deleted";
    case "M":
    case "T":
      return "modified";
    default:
      throw new Error(`unexpected git diff status "${letter}"`);
  }
}

type LineCounts = Pick<ChangedFile, "additions" | "deletions" | "binary">;

const NO_COUNTS: LineCounts = { additions: 0, deletions: 0, binary: false };

/** `--numstat -z`: "added\tdeleted\tpath\0" records, "-\t-" for binary files. */
function parseCounts(output: string): Map<string, LineCounts> {
  const counts = new Map<string, LineCounts>();
  for (const record of output.split("\0")) {
    const match = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(record);
    if (match?.[1] === undefined || match[2] === undefined || match[3] === undefined) continue;
    const isBinary = match[1] === "-";
    const previous = counts.get(match[3]) ?? NO_COUNTS;
    counts.set(match[3], {
      additions: previous.additions + (isBinary ? 0 : Number(match[1])),
      deletions: previous.deletions + (isBinary ? 0 : Number(match[2])),
      binary: previous.binary || isBinary,
    });
  }
  return counts;
}

function mergeChanges(
  statuses: Map<string, ChangedFile["status"]>,
  counts: Map<string, LineCounts>,
): ChangedFile[] {
  const changedFiles = [...statuses].map(([path, status]) => ({
    path,
    status,
    ...(counts.get(path) ?? NO_COUNTS),
  }));
  return changedFiles.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}
