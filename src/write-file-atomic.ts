import { renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";

/**
 * Writes a file whole or not at all: a temporary file next to it, renamed over it, so a reader
 * (or a run killed halfway) never sees half a summary, patch or report.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = tempPathFor(path);
  await writeFile(temp, content);
  await rename(temp, path);
}

/**
 * `writeFileAtomic` with synchronous calls, for small files written at the end of a task or batch
 * (summary.json, report.json): four trips through the thread pool would each wait behind other
 * tasks' file work, and cost more than the writes themselves.
 */
export function writeFileAtomicSync(path: string, content: string): void {
  const temp = tempPathFor(path);
  writeFileSync(temp, content);
  renameSync(temp, path);
}

/** Next to the file (a rename never crosses file systems), and unique to this process. */
function tempPathFor(path: string): string {
  return `${path}.${process.pid}.tmp`;
}
