import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSameOrInside, resolveRealPath } from "../../fs/real-path.js";

/**
 * A private folder for one task's snapshot git dir: made with mode 0700 in the system's
 * temporary folder, so that it is neither in the workspace nor in the output folder, and removed
 * when the task ends. `avoid` lists folders it must not be inside (the workspace, the run folder).
 */
export async function makeScratchFolder(avoid: readonly string[]): Promise<ScratchFolder> {
  const base = resolveRealPath(tmpdir());
  const inside = avoid.map(resolveRealPath).find((folder) => isSameOrInside(base, folder));
  if (inside !== undefined) {
    throw new Error(
      `the temporary folder ${base} is inside ${inside}, where the agent can write; set TMPDIR to a folder outside it`,
    );
  }
  const path = mkdtempSync(join(base, "agent-run-"));
  return {
    path,
    gitDir: join(path, "snapshots.git"),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

/** A scratch folder, its snapshot git dir (made on first use) and how to remove it. */
export type ScratchFolder = { path: string; gitDir: string; remove: () => Promise<void> };
