import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { type Redactor, redactStrings } from "../redact.js";
import { buildReport, type Report } from "./aggregate.js";
import { loadRunSummaries } from "./load-runs.js";
import { reportJson } from "./report-json.js";

/**
 * Rebuilds `DIR/report.json` from every run folder in `outDir` (after a replay or resume changed
 * some of them), so it stays the report of the whole folder, the one `agent-run report DIR` gives;
 * returns it.
 */
export async function refreshFolderReport(
  outDir: string,
  redact: Redactor = (text) => text,
): Promise<Report> {
  const report = redactStrings(buildReport(await loadRunSummaries([outDir])), redact);
  await writeFileAtomic(join(outDir, "report.json"), reportJson(report));
  return report;
}
