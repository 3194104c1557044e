import { makeScratchFolder } from "./git/scratch.js";
import { contentHash, snapshotWorkspace } from "./snapshot.js";

/**
 * The content hash a run records for its starting workspace, computed for `folder` as it is now
 * (in a throwaway private git dir), so a replay can tell whether it starts from the same files.
 */
export async function hashWorkspace(folder: string): Promise<string> {
  const scratch = await makeScratchFolder([folder]);
  try {
    return contentHash(await snapshotWorkspace({ workspace: folder, gitDir: scratch.gitDir }));
  } finally {
    await scratch.remove();
  }
}
