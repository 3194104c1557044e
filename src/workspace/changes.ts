import { decodePatch } from "./binary-patch.js";
import { type GitTarget, runGitBytes } from "./git/run-git.js";
import type { Snapshot } from "./snapshot.js";

/** One file that differs between two snapshots, in the shape `git diff --numstat` reports. */
export type ChangedFile = {
  /** Relative to the workspace, forward slashes. */
  path: string;
  /** A change of type (file ↔ symlink) or of the executable bit alone counts as "modified". */
  status: "added" | "modified" | "deleted";
  /** Git's modes before and after (`100644` → `100755`), when a modified file's mode changed. */
  mode?: ModeChange;
  /** Lines added and deleted; both 0 for a binary file. */
  additions: number;
  deletions: number;
  /** Git sees binary content (a NUL byte) on either side; `--numstat` prints "-". */
  binary: boolean;
};

/** A file mode as git writes it: `100644`, `100755`, `120000` (symlink). */
export type ModeChange = { before: string; after: string };

/** The difference between two snapshots: per-file counts and a patch. */
export type WorkspaceChanges = {
  /** Sorted by path (byte order, as git sorts). Empty when nothing changed. */
  changedFiles: ChangedFile[];
  /** `git apply` reproduces `after` from `before` byte for byte, binaries included; "" when unchanged. */
  patch: string;
};

/**
 * What to compare: two snapshots taken with the same workspace and git dir, or without `after`,
 * `before` and what the git dir's index holds now (the workspace as `stageWorkspace` last read it).
 */
export type DiffOptions = {
  workspace: string;
  gitDir: string;
  before: Snapshot;
  after?: Snapshot;
  /** Whether content holds a secret: such a binary change is left out of the patch, with a line. */
  holdsSecret?: (bytes: Uint8Array) => boolean;
};

/** Git options shared by every diff here: the content as it is, no renames, no helpers. */
const DIFF_OPTIONS = ["-r", "--no-renames", "--no-ext-diff", "--no-textconv"];

/** The patch as `git apply` wants it: full ids, binary content, a/ and b/ prefixes, no colour. */
const PATCH_FORMAT = [
  "--patch",
  "--binary",
  "--full-index",
  "--no-color",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** Reports what changed between two snapshots, for the summary and the patch file. */
export async function diffSnapshots(options: DiffOptions): Promise<WorkspaceChanges> {
  const { workspace, gitDir, before, after } = options;
  const target: GitTarget = { gitDir, workTree: workspace };
  if (before.tree === after?.tree) return { changedFiles: [], patch: "" };
  const compared =
    after === undefined
      ? ["diff-index", "--cached", ...DIFF_OPTIONS, before.tree]
      : ["diff-tree", ...DIFF_OPTIONS, before.tree, after.tree];
  const output = await runGitBytes(
    target,
    [...compared, "-z", "--raw", "--numstat", ...PATCH_FORMAT],
    {
      // The patch's file names C-quoted ("caf\351.txt"): ASCII, so a name that is not UTF-8
      // survives the patch being text, and `git apply` reads it back. `-z` fields are never quoted.
      config: ["core.quotepath=on"],
    },
  );
  const { statuses, counts, patchStart } = parseSummary(output);
  const patch = await decodePatch(target, output.subarray(patchStart), options.holdsSecret);
  return { changedFiles: mergeChanges(statuses, counts), patch };
}

/** The summary part of one diff-tree output, and where its patch starts. */
type Summary = {
  statuses: Map<string, Pick<ChangedFile, "status" | "mode">>;
  counts: Map<string, LineCounts>;
  patchStart: number;
};

/**
 * Reads the output of `diff-tree -z --raw --numstat --patch`: NUL-terminated fields holding raw
 * records (":<modes> <ids> <letter>", then the path), then numstat records ("<added>\t<deleted>\t
 * <path>"), then one empty field; the patch text follows it. Paths cannot hold NUL, so this walk
 * is exact for any file name.
 */
function parseSummary(output: Buffer): Summary {
  const statuses = new Map<string, Pick<ChangedFile, "status" | "mode">>();
  const counts = new Map<string, LineCounts>();
  let offset = 0;
  const nextField = (): string | undefined => {
    const end = output.indexOf(0, offset);
    if (end === -1) return undefined;
    const field = output.toString("utf8", offset, end);
    offset = end + 1;
    return field;
  };
  for (let field = nextField(); field !== undefined && field !== ""; field = nextField()) {
    if (field.startsWith(":")) {
      statuses.set(nextField() ?? "", readRawRecord(field));
    } else {
      addCounts(counts, field);
    }
  }
  return { statuses, counts, patchStart: offset };
}

/** A raw record, ":<old mode> <new mode> <old id> <new id> <letter>": its status and mode change. */
function readRawRecord(record: string): Pick<ChangedFile, "status" | "mode"> {
  const [before = "", after = "", , , letter = ""] = record.slice(1).split(" ");
  const status = toStatus(letter);
  return status === "modified" && before !== after
    ? { status, mode: { before, after } }
    : { status };
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

/** One `--numstat -z` record: "added\tdeleted\tpath", "-\t-" for a binary file. */
function addCounts(counts: Map<string, LineCounts>, record: string): void {
  const match = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(record);
  if (match?.[1] === undefined || match[2] === undefined || match[3] === undefined) return;
  const isBinary = match[1] === "-";
  const previous = counts.get(match[3]) ?? NO_COUNTS;
  counts.set(match[3], {
    additions: previous.additions + (isBinary ? 0 : Number(match[1])),
    deletions: previous.deletions + (isBinary ? 0 : Number(match[2])),
    binary: previous.binary || isBinary,
  });
}

function mergeChanges(
  statuses: Map<string, Pick<ChangedFile, "status" | "mode">>,
  counts: Map<string, LineCounts>,
): ChangedFile[] {
  const changedFiles = [...statuses].map(([path, { status, mode }]) => ({
    path,
    status,
    ...(counts.get(path) ?? NO_COUNTS),
    ...(mode === undefined ? {} : { mode }),
  }));
  return changedFiles.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}
