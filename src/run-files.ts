import { mkdirSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { realPathOr } from "./real-path.js";
import type { Redactor } from "./redact.js";
import {
  keepLaneSnapshot,
  MAX_REUSED_FILES,
  resetLaneGitDir,
  reusedLaneSnapshot,
} from "./snapshot-scratch.js";
import { diffSnapshots, type WorkspaceChanges } from "./workspace/changes.js";
import { prepareWorkspace } from "./workspace/prepare.js";
import { type Snapshot, snapshotWorkspace } from "./workspace/snapshot.js";
import { createFingerprintBuilder } from "./workspace/source-fingerprint.js";
import { writeFileAtomic } from "./write-file-atomic.js";

/**
 * Where a run's snapshots live, and what in the workspace is not content. `isLane`: the git dir is
 * a batch lane's (see `snapshot-scratch.ts`), kept after the run; otherwise it is the run's own.
 */
export type SnapshotPlace = { gitDir: string; excludePaths: string[]; isLane?: boolean };

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

/** Removes a run's own git folder once its snapshots are done with (a lane's stays). */
export async function removeSnapshots(place: SnapshotPlace): Promise<void> {
  if (place.isLane === true) return;
  await rm(place.gitDir, { recursive: true, force: true });
}

/**
 * Copies (or adopts) the workspace and records its starting state, beside the task's first model
 * call. It starts a moment later, so that the request (whose connection takes an event-loop turn
 * or two) goes out first and the copy runs while the model answers; for a task alone, the copy
 * of a small folder is one synchronous stretch (`isEveryFileOnThreadPool`: see `copyTree`).
 * `onReady` comes as soon as the files have been read for the snapshot: the agent's tools may
 * change them from then on, while the snapshot's tree is still being written.
 */
export async function prepare(
  source: string,
  isInPlace: boolean,
  runDir: string,
  place: SnapshotPlace,
  options: { onReady?: () => void; isEveryFileOnThreadPool?: boolean } = {},
): Promise<{ workspace: string; before: Snapshot }> {
  await sleep(FIRST_REQUEST_HEAD_START_MS);
  const realSource = realPathOr(source);
  if (place.isLane === true) await resetLaneGitDir(place.gitDir, realSource);
  // A lane's copy is fingerprinted as it is made: the lane's snapshot of an earlier copy of the
  // same workspace may then serve as this one's (see `reusedLaneSnapshot`), saving two git calls.
  const fingerprint =
    place.isLane === true && !isInPlace ? createFingerprintBuilder(MAX_REUSED_FILES) : undefined;
  const { path } = await prepareWorkspace({
    source,
    runDir,
    inPlace: isInPlace,
    isEveryFileOnThreadPool: options.isEveryFileOnThreadPool === true,
    ...(fingerprint === undefined ? {} : { onEntry: fingerprint.add }),
  });
  const copied = fingerprint?.finish();
  const reused =
    copied === undefined ? undefined : reusedLaneSnapshot(place.gitDir, copied, realSource);
  if (reused !== undefined) {
    options.onReady?.();
    return { workspace: path, before: reused };
  }
  const before = await snapshotWorkspace({
    workspace: path,
    ...place,
    ...(options.onReady === undefined ? {} : { onStaged: options.onReady }),
  });
  if (copied !== undefined) await keepLaneSnapshot(place.gitDir, copied, before);
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
