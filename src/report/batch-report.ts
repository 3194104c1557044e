import { join } from "node:path";
import type { Redactor } from "../redact.js";
import { writeFileAtomicSync } from "../write-file-atomic.js";
import { buildReport } from "./aggregate.js";
import { formatReportMarkdown } from "./markdown.js";
import { reportJson } from "./report-json.js";
import { runSummaryOf, type TaskSummary } from "./summary.js";

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
  writeFileAtomicSync(join(outDir, "report.json"), redact(reportJson(report)));
  return formatReportMarkdown(report);
}
