import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { buildReport } from "./aggregate.js";
import { loadRunSummaries } from "./load-runs.js";
import { formatReportMarkdown } from "./markdown.js";
import { reportJson } from "./report-json.js";

/**
 * Rebuilds `DIR/report.json` from every run folder in `outDir` (after a replay or resume changed
 * some of them), so it stays the report of the whole folder; returns its Markdown table.
 */
export async function refreshFolderReport(outDir: string): Promise<string> {
  const report = buildReport(await loadRunSummaries([outDir]));
  await writeFileAtomic(join(outDir, "report.json"), reportJson(report));
  return formatReportMarkdown(report);
}
