import { writeOutputFile } from "../fs/output-file.js";
import { renderViewHtml } from "./render-html.js";
import type { ViewPage } from "./view-data.js";

/**
 * Writes the page as one HTML file (whole or not at all) and returns its size in bytes. A file
 * that cannot be written is a `ConfigError` naming `what` (the flag that chose it).
 */
export async function writeViewFile(file: string, page: ViewPage, what: string): Promise<number> {
  const html = renderViewHtml(page);
  await writeOutputFile(what, file, html);
  return Buffer.byteLength(html);
}
