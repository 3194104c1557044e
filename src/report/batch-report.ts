import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { totalTokens } from "../model/model-client.js";
import type { Redactor } from "../redact.js";
import { buildReport } from "./aggregate.js";
import { formatReportMarkdown } from "./markdown.js";
import { reportJson } from "./report-json.js";
import type { RunSummary } from "./run-summary.js";
import type { TaskSummary } from "./summary.js";

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

/**
 * A finished task as the report reads it: what `parseRunSummary` gives for the `summary.json` that
 * `summaryJson` writes of it, without the round trip (its schema check is for files written
 * elsewhere, and its first use alone cost ~2 ms at the end of every run). The usage and the checks
 * are the summary's own objects: the report only reads them.
 */
export function runSummaryOf(summary: TaskSummary): RunSummary {
  return {
    name: summary.name,
    taskFile: summary.taskFile,
    status: summary.status,
    passed: summary.passed,
    error: summary.error ?? null,
    model: summary.model,
    steps: summary.steps,
    usage: summary.usage,
    totalTokens: totalTokens(summary.usage),
    costUsd: summary.costUsd,
    durationMs: summary.durationMs,
    changedFileCount: summary.changedFiles.length,
    checks: summary.checks,
    folder: summary.runDir,
  };
}
