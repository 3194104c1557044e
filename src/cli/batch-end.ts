import { resolve } from "node:path";
import { formatDuration } from "../format.js";
import { relativeIfInside } from "../fs/real-path.js";
import type { Report } from "../report/aggregate.js";
import { formatReportMarkdown } from "../report/markdown.js";
import type { CliIo } from "./io.js";

/**
 * The end of a batch on stdout, as `run` and `resume` print it: the report's table as plain text
 * (the folder's `report.json`), then the wall time and where the outputs are.
 */
export function printBatchEnd(
  io: CliIo,
  end: { report: Report; outDir: string; wallTimeMs: number },
): void {
  io.writeOut(formatReportMarkdown(end.report, "plain"));
  io.writeOut(
    `wall time ${formatDuration(end.wallTimeMs)}; outputs in ${displayPath(end.outDir)} (report.json)`,
  );
}

/** A path for the log: relative to the current folder when below it, else absolute. */
export function displayPath(path: string): string {
  return resolve(path) === process.cwd() ? "." : relativeIfInside(path, process.cwd());
}
