import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import type { Redactor } from "../redact.js";
import { buildReport } from "./aggregate.js";
import { formatReportMarkdown } from "./markdown.js";
import { reportJson } from "./report-json.js";
import { parseRunSummary, type RunSummary } from "./run-summary.js";
import { SUMMARY_FILE, summaryJson, type TaskSummary } from "./summary.js";

/**
 * The end of a batch: `DIR/report.json` over this batch's tasks (the same report `agent-run
 * report DIR` gives for them), and its Markdown table for the log.
 */
export async function writeBatchReport(
  outDir: string,
  summaries: readonly TaskSummary[],
  redact: Redactor = (text) => text,
): Promise<string> {
  const report = buildReport(summaries.map(runSummaryOf));
  await writeFileAtomic(join(outDir, "report.json"), redact(reportJson(report)));
  return formatReportMarkdown(report);
}

/** A finished task as `agent-run report` would read it back from its `summary.json`. */
function runSummaryOf(summary: TaskSummary): RunSummary {
  const file = join(summary.runDir, SUMMARY_FILE);
  return parseRunSummary(JSON.stringify(summaryJson(summary)), file, summary.runDir);
}
