import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash, snapshotWorkspace } from "./snapshot.js";

/**
 * The content hash a run records for its starting workspace, computed for `folder` as it is now
 * (in a throwaway private git dir), so a replay can tell whether it starts from the same files.
 */
export async function hashWorkspace(folder: string): Promise<string> {
  const gitDir = await mkdtemp(join(tmpdir(), "agent-run-hash-"));
  try {
    return contentHash(await snapshotWorkspace({ workspace: folder, gitDir }));
  } finally {
    await rm(gitDir, { recursive: true, force: true });
  }
}
