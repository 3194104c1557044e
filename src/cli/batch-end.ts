import { relative } from "node:path";
import { formatDuration } from "../format.js";
import type { CliIo } from "./io.js";

/**
 * The end of a batch on stdout, as `run` and `resume` print it: the report's table (of the
 * folder's `report.json`), then the wall time and where the outputs are.
 */
export function printBatchEnd(
  io: CliIo,
  end: { markdown: string; outDir: string; wallTimeMs: number },
): void {
  io.writeOut(end.markdown);
  io.writeOut(
    `wall time ${formatDuration(end.wallTimeMs)}; outputs in ${displayPath(end.outDir)} (report.json)`,
  );
}

/** A path for the log: relative to the current folder when below it, else absolute. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}
