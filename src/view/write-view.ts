import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { renderViewHtml } from "./render-html.js";
import type { ViewPage } from "./view-data.js";

/**
 * Writes the page as one HTML file (whole or not at all) and returns its size in bytes. A file
 * that cannot be written is a `ConfigError` naming `what` (the flag that chose it).
 */
export async function writeViewFile(file: string, page: ViewPage, what: string): Promise<number> {
  const html = renderViewHtml(page);
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, html);
  } catch (error) {
    throw new ConfigError(`${what} ${file}: cannot write: ${messageOf(error)}`, error);
  }
  return Buffer.byteLength(html);
}
