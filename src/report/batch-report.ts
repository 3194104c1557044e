import { rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { type Redactor, redactStrings } from "../redact.js";
import { buildReport, type Report } from "./aggregate.js";
import { reportJson } from "./report-json.js";
import { parseRunSummary, type RunSummary } from "./run-summary.js";
import { SUMMARY_FILE, summaryJson, type TaskSummary } from "./summary.js";

/**
 * The end of a batch: `DIR/report.json` over this batch's tasks (the same report `agent-run
 * report DIR` gives for them); returns the report, for the log's table and the job summary.
 */
export async function writeBatchReport(
  outDir: string,
  summaries: readonly TaskSummary[],
  redact: Redactor = (text) => text,
): Promise<Report> {
  // Redacted first: the Markdown escapes what it shows, and an escaped secret would not match.
  const report = buildReport(
    summaries.map((summary) => runSummaryOf(redactStrings(summary, redact))),
  );
  await writeFileAtomic(join(outDir, "report.json"), redact(reportJson(report)));
  return report;
}

/**
 * The start of a batch: an earlier batch's `DIR/report.json` goes, so that a batch killed before
 * its end leaves no report claiming what this batch did not do.
 */
export async function removeBatchReport(outDir: string): Promise<void> {
  await rm(join(outDir, "report.json"), { force: true });
}

/** A finished run as `agent-run report` would read it back from its `summary.json`. */
export function runSummaryOf(summary: TaskSummary): RunSummary {
  const file = join(summary.runDir, SUMMARY_FILE);
  return parseRunSummary(JSON.stringify(summaryJson(summary)), file, summary.runDir);
}
