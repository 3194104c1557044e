import { appendFile } from "node:fs/promises";
import type { RunStatus } from "../agent/events.js";
import type { TaskFileProblem } from "../errors.js";
import { oneLine } from "../format.js";
import { relativeIfInside } from "../fs/real-path.js";
import type { SdkWarning } from "../model/model-client.js";
import { workflowCommand } from "../workflow-commands.js";
import { buildReport, type Report } from "./aggregate.js";
import { runSummaryOf } from "./batch-report.js";
import { outputLines, stepOutputs } from "./github-outputs.js";
import { jobSummary } from "./job-summary.js";
import { formatReportMarkdown } from "./markdown.js";
import { createProgressReporter, firstTimeFilter } from "./progress.js";
import type { Reporter, ReportIo } from "./reporter.js";
import { runLabel } from "./run-folders.js";
import type { TaskSummary } from "./summary.js";

/** Statuses where a limit stopped the task: a warning, not an error, in the Actions UI. */
const LIMIT_STATUSES: ReadonlySet<RunStatus> = new Set([
  "max_steps",
  "max_tokens",
  "max_cost",
  "timeout",
  "budget",
  "skipped",
]);

/** GitHub shows at most this many annotations of each level per step, and drops the rest. */
const MAX_ANNOTATIONS_PER_LEVEL = 10;

type Annotation = {
  level: "error" | "warning";
  properties: Readonly<Record<string, string | number>>;
  message: string;
};

/**
 * The annotations as command lines, at most `MAX_ANNOTATIONS_PER_LEVEL` of each level: past that,
 * the first ones and then one saying how many more there are and `where` to read them all.
 */
function capAnnotations(list: readonly Annotation[], where: string): string[] {
  const hiddenAll: Annotation[] = [];
  const notes: Annotation[] = [];
  for (const level of ["error", "warning"] as const) {
    const ofLevel = list.filter((annotation) => annotation.level === level);
    if (ofLevel.length <= MAX_ANNOTATIONS_PER_LEVEL) continue;
    const hidden = ofLevel.slice(MAX_ANNOTATIONS_PER_LEVEL - 1);
    notes.push({
      level,
      properties: { title: `agent-run: ${hidden.length} more ${level}s` },
      message: `${hidden.length} more ${level}s are not shown as annotations (GitHub shows ${MAX_ANNOTATIONS_PER_LEVEL}); see ${where}`,
    });
    hiddenAll.push(...hidden);
  }
  return [...list.filter((annotation) => !hiddenAll.includes(annotation)), ...notes].map(
    (annotation) => workflowCommand(annotation.level, annotation.properties, annotation.message),
  );
}

/** The folder GitHub resolves an annotation's `file` from: the checkout, `$GITHUB_WORKSPACE`. */
export function annotationRoot(env: ReportIo["env"]): string | undefined {
  const root = env.GITHUB_WORKSPACE;
  return root === undefined || root === "" ? undefined : root;
}

/** `file` relative to `root` when it lies inside it, else as given (GitHub then cannot place it). */
function annotationFile(file: string, root: string | undefined): string {
  return root === undefined ? file : relativeIfInside(file, root);
}

/**
 * `::error` / `::warning` annotations for the tasks that did not pass: one per failed check, at
 * its line in the task file; else one for the status (a warning when a limit stopped the task);
 * then a `::warning` per distinct SDK warning. Capped as GitHub caps them; the job summary lists
 * every failure, the log every warning. Task files are given relative to `root` (`annotationRoot`).
 */
export function annotations(
  summaries: readonly TaskSummary[],
  sdkWarnings: readonly SdkWarning[] = [],
  root: string | undefined = undefined,
): string[] {
  const list = summaries.flatMap((summary): Annotation[] => {
    if (summary.passed) return [];
    const checkAnnotations = summary.checks
      .filter((check) => !check.passed)
      .map(
        (check): Annotation => ({
          level: "error",
          properties: {
            file: annotationFile(summary.taskFile, root),
            line: check.line,
            title: `agent-run: ${runLabel(summary)}: check failed`,
          },
          message: `${check.name}: ${check.message}`,
        }),
      );
    return summary.status === "completed"
      ? checkAnnotations
      : [statusAnnotation(summary, root), ...checkAnnotations];
  });
  const warnings = sdkWarnings.map(
    (warning): Annotation => ({
      level: "warning",
      properties: { title: `agent-run: warning from ${warning.source}` },
      message: oneLine(warning.message, 500),
    }),
  );
  return capAnnotations([...list, ...warnings], "the job summary");
}

/**
 * `::error` annotations for invalid task files (exit 2): one per problem, at its file, line and
 * column, so GitHub shows it on the line as the `file:line:col` text shows it in a terminal.
 * Capped as GitHub caps them; the step's log lists every problem. Files as in `annotations`.
 */
export function taskFileAnnotations(
  problems: readonly TaskFileProblem[],
  root: string | undefined = undefined,
): string[] {
  const list = problems.map(
    (problem): Annotation => ({
      level: "error",
      properties: {
        file: annotationFile(problem.file, root),
        line: problem.line,
        col: problem.column,
        title: "agent-run: invalid task file",
      },
      message: problem.path === "" ? problem.message : `${problem.path}: ${problem.message}`,
    }),
  );
  return capAnnotations(list, "the step's log");
}

function statusAnnotation(summary: TaskSummary, root: string | undefined): Annotation {
  const level = LIMIT_STATUSES.has(summary.status) ? "warning" : "error";
  const title = `agent-run: ${runLabel(summary)}: ${summary.status}`;
  const message = summary.error ?? `the task ended with status ${summary.status}`;
  const file = annotationFile(summary.taskFile, root);
  return { level, properties: { file, title }, message };
}

/**
 * The log under GitHub Actions (`GITHUB_ACTIONS=true`): each task's lines in a `::group::`, then
 * annotations, the job summary and the step outputs. One task at a time streams inside its group;
 * with several, each group is written whole at the task's end, so groups never interleave.
 */
export function createGithubReporter(
  io: ReportIo,
  options: { isVerbose: boolean; concurrency: number },
): Required<Reporter> {
  const isStreamed = options.concurrency === 1;
  const writeCommand = io.writeCommand ?? io.writeErr;
  const buffers = new Map<string, string[]>();
  const sdkWarnings: SdkWarning[] = [];
  const isNewWarning = firstTimeFilter();
  const progress = createProgressReporter({
    write: (line, task) => (isStreamed ? io.writeErr(line) : buffers.get(task)?.push(line)),
    isColor: false,
    isVerbose: options.isVerbose,
  });
  return {
    onTaskStart(name, detail) {
      if (isStreamed) writeCommand(workflowCommand("group", {}, name));
      else buffers.set(name, []);
      progress.onTaskStart(name, detail);
    },
    onEvent(name, event) {
      if (event.type === "model_warning" && isNewWarning(event.warning))
        sdkWarnings.push(event.warning);
      progress.onEvent(name, event);
    },
    onCheck: progress.onCheck,
    // The next attempt's lines go on in the same group.
    onTaskRetry: progress.onTaskRetry,
    onTaskEnd(summary) {
      progress.onTaskEnd(summary);
      if (!isStreamed) {
        const label = runLabel(summary);
        writeCommand(workflowCommand("group", {}, groupTitle(summary)));
        for (const line of buffers.get(label) ?? []) io.writeErr(line);
        buffers.delete(label);
      }
      writeCommand(workflowCommand("endgroup", {}, ""));
    },
    onBatchEnd: (summaries, report, outDir, viewFile) =>
      writeGithubFiles(io, { summaries, sdkWarnings, viewFile }, report, outDir),
  };
}

/**
 * A finished task's group title, saying pass or fail with its checks, so a collapsed log shows the
 * verdict: `fix: FAILED (completed, checks 1/3)`, `add-farewell: passed (checks 3/3)`.
 */
export function groupTitle(summary: TaskSummary): string {
  const label = runLabel(summary);
  const passedChecks = summary.checks.filter((check) => check.passed).length;
  const checks =
    summary.checks.length === 0 ? [] : [`checks ${passedChecks}/${summary.checks.length}`];
  if (summary.passed)
    return checks.length === 0 ? `${label}: passed` : `${label}: passed (${checks[0]})`;
  return `${label}: FAILED (${[summary.status, ...checks].join(", ")})`;
}

/** Annotations on stderr, the job summary to `$GITHUB_STEP_SUMMARY`, outputs to `$GITHUB_OUTPUT`. */
async function writeGithubFiles(
  io: ReportIo,
  batch: {
    summaries: readonly TaskSummary[];
    sdkWarnings: readonly SdkWarning[];
    viewFile: string | undefined;
  },
  report: Report,
  outDir: string,
): Promise<void> {
  const { summaries } = batch;
  const redact = io.redact ?? ((text: string) => text);
  for (const line of annotations(summaries, batch.sdkWarnings, annotationRoot(io.env)))
    (io.writeCommand ?? io.writeErr)(line);
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== "")
    await appendFile(
      summaryFile,
      redact(jobSummary(formatReportMarkdown(report), summaries, batch.viewFile)),
    );
  const outputFile = io.env.GITHUB_OUTPUT;
  if (outputFile === undefined || outputFile === "") return;
  // The runs of this batch (a replay's or resume's, not the folder's others).
  const own = buildReport(summaries.map(runSummaryOf));
  const { outputs, warning } = stepOutputs(own, summaries, outDir, batch.viewFile);
  if (warning !== undefined) {
    const properties = { title: "agent-run: structured_output left out" };
    (io.writeCommand ?? io.writeErr)(workflowCommand("warning", properties, warning));
  }
  await appendFile(outputFile, redact(outputLines(outputs)));
}
