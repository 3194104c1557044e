import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { ConfigError } from "../../errors.js";
import { oneLine } from "../../format.js";
import { writeOutputFile } from "../../fs/output-file.js";
import { redactStrings } from "../../redact.js";
import { buildReport, type Report } from "../../report/aggregate.js";
import { compareReports, type ReportComparison, SIGNIFICANCE_LEVEL } from "../../report/compare.js";
import { comparisonJson } from "../../report/compare-json.js";
import {
  differenceTitle,
  formatComparisonMarkdown,
  taskNames,
} from "../../report/compare-markdown.js";
import type { FingerprintDifference } from "../../report/fingerprint-diff.js";
import { annotationRoot } from "../../report/github-actions.js";
import { formatJunit } from "../../report/junit.js";
import { loadRunSummaries } from "../../report/load-runs.js";
import { formatReportMarkdown } from "../../report/markdown.js";
import { parseReportJson } from "../../report/read-report-json.js";
import { readReportText } from "../../report/read-report-text.js";
import { reportJson } from "../../report/report-json.js";
import { SUMMARY_FILE } from "../../report/summary.js";
import { EXIT } from "../exit-codes.js";
import { expandPatterns } from "../expand-patterns.js";
import type { CliIo } from "../io.js";
import type { ReportArgs } from "../report-flags.js";

/**
 * `agent-run report`: prints the Markdown report (or comparison) on stdout and writes the asked-for
 * files. Returns 0 once everything was read, whatever the tasks' outcome (with `--compare
 * --fail-on-regression`, 1 for a regression); throws `ConfigError` (exit 2) for bad input and for
 * batches too different to compare.
 */
export async function reportCommand(args: ReportArgs, io: CliIo): Promise<number> {
  const onWarning = (message: string) => io.writeErr(`agent-run: warning: ${message}`);
  // Secrets go from the raw text first, before Markdown, XML or JSON escapes it.
  const redact = (report: Report) =>
    io.redact === undefined ? report : redactStrings(report, io.redact);
  if (args.mode === "compare") {
    const base = redact(await readReport(args.base, onWarning));
    const next = redact(await readReport(args.next, onWarning));
    const comparison = compareReports(base, next, args.regressionTasks);
    refuseUnfair(comparison.differences, args);
    refuseUnknownTasks(args.regressionTasks, comparison);
    if (args.jsonFile !== undefined) {
      await writeOutputFile(
        "--json",
        args.jsonFile,
        comparisonJson(comparison, SIGNIFICANCE_LEVEL),
      );
    }
    io.writeOut(formatComparisonMarkdown(comparison));
    return args.isRegressionFailed && comparison.regression.isRegression
      ? EXIT.taskFailed
      : EXIT.ok;
  }
  const paths = await expandPatterns(args.patterns, "run folders");
  const report = redact(buildReport(await loadRunSummaries(paths, { onWarning })));
  if (args.jsonFile !== undefined)
    await writeOutputFile("--json", args.jsonFile, reportJson(report));
  if (args.junitFile !== undefined) {
    // Consumers resolve the task files from the checkout in CI, else from where they run.
    const root = annotationRoot(io.env) ?? process.cwd();
    const junit = formatJunit(report, { hasFileLine: args.hasJunitFileLine, root });
    await writeOutputFile("--junit", args.junitFile, junit);
  }
  io.writeOut(formatReportMarkdown(report));
  return 0;
}

/**
 * Refuses (exit 2, nothing written) a comparison of batches that differ in what makes pass rates
 * comparable (task set, limits, prices, unknown fingerprints), unless `--allow-different`.
 */
function refuseUnfair(
  differences: readonly FingerprintDifference[],
  args: { base: string; next: string; isDifferentAllowed: boolean },
): void {
  const refused = differences.filter((difference) => difference.isRefused);
  if (refused.length === 0 || args.isDifferentAllowed) return;
  const lines = refused.map(
    (difference) =>
      `  ${oneLine(`${differenceTitle(difference)}: ${difference.change}; ${taskNames(difference.tasks)}`, 500)}`,
  );
  throw new ConfigError(
    [
      `cannot compare ${oneLine(args.base, 200)} with ${oneLine(args.next, 200)}: their pass rates would not be comparable:`,
      ...lines,
      "run both batches with the same tasks, limits and prices, or pass --allow-different to compare them anyway",
    ].join("\n"),
  );
}

/** A `--regression-task` that names no task of both batches would gate nothing: refused. */
function refuseUnknownTasks(names: readonly string[], comparison: ReportComparison): void {
  const known = new Set(comparison.tasks.map((task) => task.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length === 0) return;
  throw new ConfigError(
    `--regression-task ${oneLine(unknown.join(", "), 500)}: not a task of both batches (${oneLine(taskNames([...known]), 500)}); name a task both ran`,
  );
}

/** A comparison side: a `report.json` (or any report file) as written, else folders of runs. */
async function readReport(path: string, onWarning: (message: string) => void): Promise<Report> {
  const isFile = await stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!isFile || basename(path) === SUMMARY_FILE) {
    return buildReport(await loadRunSummaries([path], { onWarning }));
  }
  return parseReportJson(await readReportText(path), path);
}
