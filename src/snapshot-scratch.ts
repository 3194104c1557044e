import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { messageOf } from "./errors.js";
import { runGit } from "./workspace/run-git.js";
import type { Snapshot } from "./workspace/snapshot.js";
import {
  isSettled,
  isUnchangedSince,
  type SourceFingerprint,
} from "./workspace/source-fingerprint.js";

// A batch keeps one snapshot git dir per task running at once (a "lane"), in a folder of the
// output folder, instead of making and deleting one per task: ~30 files made and 25 deleted per
// task fewer, and the objects of a workspace that the lane's tasks share are stored once.

/** The scratch folder's name: hidden, and task names start with a letter or digit. */
const PREFIX = ".snapshots-";

/** The file in a lane's git dir naming the workspace its objects came from. */
const SOURCE_FILE = "agent-run-source";

/** The file in a lane's git dir with the starting snapshot a copy of that workspace had. */
const BEFORE_FILE = "agent-run-before.json";

/** That snapshot's tree as an index (without file stats), for the next task to start from. */
const BEFORE_INDEX_FILE = "agent-run-before.index";

/**
 * The largest copy whose starting snapshot is reused: the closing snapshot of a task that reused
 * one reads every file (its index has no file stats); a bigger tree pays the git calls instead.
 */
export const MAX_REUSED_FILES = 2000;
const MAX_REUSED_BYTES = 8 * 1024 * 1024;

/** A starting snapshot and the fingerprint of the copy it was taken of (see `source-fingerprint.ts`). */
type LaneBefore = { fingerprint: string; tree: string };

/** Makes the batch's scratch folder in `outDir`: `.snapshots-<host>-<pid>-XXXXXX`. */
export function makeSnapshotScratch(outDir: string): string {
  return mkdtempSync(join(outDir, `${PREFIX}${safeHostname()}-${process.pid}-`));
}

/**
 * Removes the scratch folder once the batch's tasks are done; a failure comes back as a warning,
 * as it spoils nothing else. Synchronous: nothing else runs then, and it saves a thread-pool round
 * trip per file (the end of a one-task run waits for it).
 */
export function removeSnapshotScratch(scratch: string): string | undefined {
  try {
    rmSync(scratch, { recursive: true, force: true });
    return undefined;
  } catch (error) {
    return `could not remove the snapshot folder ${scratch}: ${messageOf(error)}; remove it by hand`;
  }
}

/**
 * Removes the scratch folders a killed batch of this machine left in `outDir` (its process is
 * gone); folders of other machines, of running batches and any that cannot go are left alone.
 */
export async function removeStaleSnapshotScratch(outDir: string): Promise<void> {
  const own = `${PREFIX}${safeHostname()}-`;
  let entries: string[];
  try {
    entries = readdirSync(outDir);
  } catch {
    return;
  }
  const stale = entries.filter((entry) => {
    if (!entry.startsWith(own)) return false;
    const pid = /^(\d+)-/.exec(entry.slice(own.length))?.[1];
    return pid !== undefined && Number(pid) !== process.pid && !isRunning(Number(pid));
  });
  await Promise.all(
    stale.map((entry) => rm(join(outDir, entry), { recursive: true, force: true }).catch(() => {})),
  );
}

/**
 * Readies a lane's git dir for a task working on a copy of `source`: the last task's index goes
 * (with its split-index parts and a lock a killed git may have left), so the first snapshot
 * reads the workspace afresh. Its objects stay when the last task worked on the same source,
 * and go when not: they would only pile up.
 */
export async function resetLaneGitDir(gitDir: string, source: string): Promise<void> {
  mkdirSync(gitDir, { recursive: true });
  const sourceFile = join(gitDir, SOURCE_FILE);
  const isSameSource = readOr(sourceFile) === source;
  const stale = readdirSync(gitDir).filter(
    (entry) =>
      entry === "index" ||
      entry === "index.lock" ||
      entry.startsWith("sharedindex") ||
      (!isSameSource &&
        (entry === "objects" || entry === BEFORE_FILE || entry === BEFORE_INDEX_FILE)),
  );
  await Promise.all(
    stale.map((entry) => rm(join(gitDir, entry), { recursive: true, force: true })),
  );
  if (!isSameSource) {
    mkdirSync(join(gitDir, "objects"), { recursive: true });
    writeFileSync(sourceFile, source);
  }
}

/**
 * The starting snapshot a lane already took of a copy of the same workspace, when this copy's
 * `fingerprint` shows the workspace unchanged since, and the workspace (`source`, its real path)
 * did not change while it was copied: the lane's earlier tasks worked on copies, never on it.
 * The lane's index becomes that snapshot's tree again (without file stats: the task's closing
 * snapshot reads every file once). Undefined when there is none to reuse.
 */
export function reusedLaneSnapshot(
  gitDir: string,
  fingerprint: SourceFingerprint,
  source: string,
): Snapshot | undefined {
  const text = readOr(join(gitDir, BEFORE_FILE));
  if (text === undefined) return undefined;
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof saved !== "object" || saved === null || !("fingerprint" in saved)) return undefined;
  if (saved.fingerprint !== fingerprint.hash || !("tree" in saved)) return undefined;
  if (typeof saved.tree !== "string" || !isUnchangedSince(fingerprint, source)) return undefined;
  try {
    copyFileSync(join(gitDir, BEFORE_INDEX_FILE), join(gitDir, "index"));
  } catch {
    return undefined;
  }
  return { tree: saved.tree };
}

/**
 * Keeps a copy's starting snapshot in the lane for the next task on the same workspace, when the
 * copy is small enough (see `MAX_REUSED_FILES`) and its fingerprint proves a later equal one.
 */
export async function keepLaneSnapshot(
  gitDir: string,
  fingerprint: SourceFingerprint,
  snapshot: Snapshot,
): Promise<void> {
  const isSmall = fingerprint.files <= MAX_REUSED_FILES && fingerprint.bytes <= MAX_REUSED_BYTES;
  if (!isSmall || !isSettled(fingerprint)) return;
  try {
    // The snapshot file makes the pair count: it goes first and comes back last.
    rmSync(join(gitDir, BEFORE_FILE), { force: true });
    await runGit({ gitDir }, ["read-tree", `--index-output=${BEFORE_INDEX_FILE}`, snapshot.tree], {
      config: ["core.splitIndex=false"],
    });
    const saved: LaneBefore = { fingerprint: fingerprint.hash, tree: snapshot.tree };
    writeFileSync(join(gitDir, BEFORE_FILE), JSON.stringify(saved));
  } catch {
    // Only a saving lost: the next task takes its own snapshot.
  }
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The host name as it can appear in a file name. */
function safeHostname(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, "_") || "host";
}
