import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSameOrInside, resolveRealPath } from "../../fs/real-path.js";
import { killOwnProcesses } from "../../process/run-process.js";

/** A scratch folder, its snapshot git dir (made on first use) and how to remove it. */
export type ScratchFolder = { path: string; gitDir: string; remove: () => Promise<void> };

/** Scratch folders not yet removed: a process that exits early (a second Ctrl-C) removes them. */
const live = new Set<string>();

function removeLiveFolders(): void {
  // A git still running would make a folder again as it writes (it creates leading folders).
  killOwnProcesses();
  for (const path of live) {
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Exiting anyway: what is left is what `kill -9` would leave.
    }
  }
}

/**
 * A private folder for one task's snapshot git dir: made with mode 0700 in the system's
 * temporary folder, so that it is neither in the workspace nor in the output folder, and removed
 * when the task ends, or when the process exits before that (only `kill -9` leaves it behind).
 * `avoid` lists folders it must not be inside (the workspace, the run folder).
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
  if (live.size === 0) process.once("exit", removeLiveFolders);
  live.add(path);
  return {
    path,
    gitDir: join(path, "snapshots.git"),
    remove: async () => {
      await rm(path, { recursive: true, force: true });
      live.delete(path);
      if (live.size === 0) process.removeListener("exit", removeLiveFolders);
    },
  };
}
