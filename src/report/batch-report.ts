import { join } from "node:path";
import type { Redactor } from "../redact.js";
import { writeFileAtomicSync } from "../write-file-atomic.js";
import { buildReport } from "./aggregate.js";
import { loadRunSummaries } from "./load-runs.js";
import { formatReportMarkdown } from "./markdown.js";
import { reportJson } from "./report-json.js";
import { parseRunSummary } from "./run-summary.js";
import { summaryJson, type TaskSummary } from "./summary.js";

/**
 * The end of a batch: `DIR/report.json` over this batch's tasks (the same report `agent-run
 * report DIR` gives for them), and its Markdown table for the log.
 */
export async function writeBatchReport(
  outDir: string,
  summaries: readonly TaskSummary[],
  redact: Redactor = (text) => text,
): Promise<string> {
  const runs = summaries.map((summary) =>
    parseRunSummary(
      JSON.stringify(summaryJson(summary)),
      join(summary.runDir, "summary.json"),
      summary.runDir,
    ),
  );
  const report = buildReport(runs);
  writeFileAtomicSync(join(outDir, "report.json"), redact(reportJson(report)));
  return formatReportMarkdown(report);
}

/**
 * Rebuilds `DIR/report.json` from every run folder in `outDir` (after a replay or resume changed
 * some of them), so it stays the report of the whole folder; returns its Markdown table.
 */
export async function refreshFolderReport(outDir: string): Promise<string> {
  const report = buildReport(await loadRunSummaries([outDir]));
  writeFileAtomicSync(join(outDir, "report.json"), reportJson(report));
  return formatReportMarkdown(report);
}
