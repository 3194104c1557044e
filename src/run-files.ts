import { mkdir, readdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Redactor } from "./redact.js";
import { diffSnapshots, type WorkspaceChanges } from "./workspace/changes.js";
import { prepareWorkspace } from "./workspace/prepare.js";
import { type Snapshot, snapshotWorkspace } from "./workspace/snapshot.js";

/** Where a run's private snapshots live, and what in the workspace is not content. */
export type SnapshotPlace = { gitDir: string; excludePaths: string[] };

/** The run's file name for the patch. */
export const PATCH_FILE = "changes.patch";

/** The folder the agent will work in, before the copy exists: `runDir/workspace`, or the source itself. */
export async function plannedWorkspace(
  source: string,
  isInPlace: boolean,
  runDir: string,
): Promise<string> {
  const real = (path: string) => realpath(path).catch(() => path);
  return isInPlace ? real(source) : join(await real(runDir), "workspace");
}

/** Empties the run folder (creating it if needed), keeping the `preserve`d file names. */
export async function clearRunDir(runDir: string, preserve: readonly string[]): Promise<void> {
  if (preserve.length === 0) await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  if (preserve.length === 0) return;
  for (const entry of await readdir(runDir)) {
    if (!preserve.includes(entry)) await rm(join(runDir, entry), { recursive: true, force: true });
  }
}

/** Copies (or adopts) the workspace and records its starting state. */
export async function prepare(
  source: string,
  isInPlace: boolean,
  runDir: string,
  place: SnapshotPlace,
): Promise<{ workspace: string; before: Snapshot }> {
  const { path } = await prepareWorkspace({ source, runDir, inPlace: isInPlace });
  const before = await snapshotWorkspace({ workspace: path, ...place });
  return { workspace: path, before };
}

/** Diffs the workspace against its starting state and writes `changes.patch`. */
export async function collectChanges(
  runDir: string,
  place: SnapshotPlace & { workspace: string },
  before: Snapshot,
  redact: Redactor,
): Promise<WorkspaceChanges> {
  const after = await snapshotWorkspace(place);
  const diff = await diffSnapshots({
    workspace: place.workspace,
    gitDir: place.gitDir,
    before,
    after,
  });
  await writeFileAtomic(join(runDir, PATCH_FILE), redact(diff.patch));
  return diff;
}

/** Writes a file whole or not at all (a temp file renamed over it). */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, content);
  await rename(temp, path);
}
