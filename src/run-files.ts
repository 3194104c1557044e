import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { realPathOr } from "./real-path.js";
import type { Redactor } from "./redact.js";
import { diffSnapshots, type WorkspaceChanges } from "./workspace/changes.js";
import { prepareWorkspace } from "./workspace/prepare.js";
import { type Snapshot, snapshotWorkspace } from "./workspace/snapshot.js";
import { writeFileAtomic } from "./write-file-atomic.js";

/** Where a run's private snapshots live, and what in the workspace is not content. */
export type SnapshotPlace = { gitDir: string; excludePaths: string[] };

/** How long a task's copy waits for its first model request to leave (see `prepare`). */
const FIRST_REQUEST_HEAD_START_MS = 1;

/** The run's file name for the patch. */
export const PATCH_FILE = "changes.patch";

// The run folder is made and looked up with synchronous calls: in a batch the thread pool (four
// threads) is busy copying other tasks' workspaces, and these small calls would wait behind that
// queue at the start of a task. Whatever can be large (a previous run's workspace copy, the
// private git folder, the patch) goes through the thread pool, so it never blocks the other tasks.

/** The folder the agent will work in, before the copy exists: `runDir/workspace`, or the source itself. */
export function plannedWorkspace(source: string, isInPlace: boolean, runDir: string): string {
  return isInPlace ? realPathOr(source) : join(realPathOr(runDir), "workspace");
}

/** Empties the run folder (creating it if needed), keeping the `preserve`d file names. */
export async function clearRunDir(runDir: string, preserve: readonly string[]): Promise<void> {
  mkdirSync(runDir, { recursive: true });
  await Promise.all(
    readdirSync(runDir)
      .filter((entry) => !preserve.includes(entry))
      .map((entry) => rm(join(runDir, entry), { recursive: true, force: true })),
  );
}

/**
 * A folder in the batch's output folder for its snapshot git dirs, `.snapshots-XXXXXX`: task names
 * start with a letter or digit, so none can clash, and `report` skips folders without a run.
 * The batch removes it when it ends (`removeSnapshotScratch`).
 */
export function makeSnapshotScratch(outDir: string): string {
  return mkdtempSync(join(outDir, ".snapshots-"));
}

/** Removes a batch's snapshot folder (see `makeSnapshotScratch`). */
export async function removeSnapshotScratch(scratch: string): Promise<void> {
  await rm(scratch, { recursive: true, force: true });
}

/**
 * Readies a borrowed git dir (see `RunTaskOptions.snapshotGitDir`) for a new task: its objects stay,
 * as the task may well share most of them, but the last task's index goes (with its split-index
 * parts and a lock a killed git may have left), so the first snapshot reads the workspace afresh.
 */
export function resetSnapshotIndex(gitDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(gitDir);
  } catch {
    return; // Not made yet: the first snapshot makes it.
  }
  for (const entry of entries) {
    if (entry === "index" || entry === "index.lock" || entry.startsWith("sharedindex.")) {
      rmSync(join(gitDir, entry), { force: true });
    }
  }
}

/** Removes a run's private git folder once its snapshots are done with. */
export async function removeSnapshots(place: SnapshotPlace): Promise<void> {
  await rm(place.gitDir, { recursive: true, force: true });
}

/**
 * Copies (or adopts) the workspace and records its starting state, beside the task's first model
 * call. It starts a moment later, so that the request (whose connection takes an event-loop turn
 * or two) goes out first and the copy runs while the model answers; the copy of a small folder is
 * one synchronous stretch. `onReady` comes as soon as the files have been read for the snapshot:
 * the agent's tools may change them from then on, while the snapshot's tree is still being written.
 */
export async function prepare(
  source: string,
  isInPlace: boolean,
  runDir: string,
  place: SnapshotPlace,
  onReady?: () => void,
): Promise<{ workspace: string; before: Snapshot }> {
  await sleep(FIRST_REQUEST_HEAD_START_MS);
  const { path } = await prepareWorkspace({ source, runDir, inPlace: isInPlace });
  const before = await snapshotWorkspace({
    workspace: path,
    ...place,
    ...(onReady === undefined ? {} : { onStaged: onReady }),
  });
  return { workspace: path, before };
}

/** Diffs the workspace against its starting state and writes `changes.patch`. */
export async function collectChanges(
  runDir: string,
  place: SnapshotPlace & { workspace: string },
  before: Snapshot,
  redact: Redactor,
): Promise<WorkspaceChanges> {
  const after = await snapshotWorkspace({ ...place, previous: before });
  const diff = await diffSnapshots({
    workspace: place.workspace,
    gitDir: place.gitDir,
    before,
    after,
  });
  await writeFileAtomic(join(runDir, PATCH_FILE), redact(diff.patch));
  return diff;
}
