import { rename, writeFile } from "node:fs/promises";

/**
 * Writes a file whole or not at all: a temporary file next to it, renamed over it, so a reader
 * (or a run killed halfway) never sees half a summary, patch or report.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, content);
  await rename(temp, path);
}
