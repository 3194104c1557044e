import { rename, rm, writeFile } from "node:fs/promises";

/**
 * Writes a file whole or not at all: a temporary file next to it, renamed over it, so a reader
 * (or a run killed halfway) never sees half a summary, patch or report.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  // Next to the file (a rename never crosses file systems), and unique to this process.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, content);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    // Node names the temporary file (`open '/x/view.html.123.tmp'`); the user asked for `path`.
    if (error instanceof Error) error.message = error.message.replaceAll(temp, path);
    throw error;
  }
}
