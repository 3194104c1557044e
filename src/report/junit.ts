import { relativeIfInside } from "../fs/real-path.js";
import { labelOfRun, type Report, type ReportRun, type ReportTask } from "./aggregate.js";
import { isRefusedKeySkip } from "./summary.js";

const SUITE = "agent-run";

/**
 * What the JUnit file holds beyond what Surefire's and Jenkins' schemas declare. `hasFileLine`
 * adds `file` (the task file) and `line` (its first failed check's) to each `<testcase>`, as
 * pytest's `junit_family=xunit1` does: consumers that read them place annotations exactly, but
 * neither schema allows them. `root` is the folder consumers resolve those paths from (the checkout,
 * `$GITHUB_WORKSPACE`, else the current folder): task files inside it are written relative to it.
 */
export type JunitOptions = { hasFileLine: boolean; root?: string };

/**
 * The report as JUnit XML for CI test views: one `<testcase>` per run (a task's, or each of its
 * trials', named `task/trial-<n>`; time in seconds), whose
 * `classname` is the task file without its extension (consumers that resolve files from the
 * classname, taking the part after its last dot, find it). A failed task gets `<failure>` (type
 * `failed_checks`, or the status it stopped with); a run that errored, or was not run because the
 * API refused the key, gets `<error>`; one the batch budget skipped gets `<skipped>`. The message
 * names the status and the failed checks, details in the body. Validates against Surefire's
 * `surefire-test-report.xsd` (per suite) and Jenkins' `junit-10.xsd` unless `hasFileLine`.
 */
export function formatJunit(
  report: Report,
  options: JunitOptions = { hasFileLine: false },
): string {
  const { totals } = report;
  const runs = report.tasks.flatMap((task) => task.runs.map((run) => ({ task, run })));
  const count = (element: Outcome["element"]) =>
    runs.filter(({ run }) => outcomeOf(run).element === element).length;
  const counts = `tests="${runs.length}" failures="${count("failure")}" errors="${count("error")}"`;
  const time = `time="${seconds(totals.durationMs)}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${SUITE}" ${counts} ${time}>`,
    `  <testsuite name="${SUITE}" ${counts} skipped="${count("skipped")}" ${time}>`,
    ...runs.map(({ task, run }) => testcase(task, run, options)),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** How a run shows in JUnit: nothing when it passed, else the element and its `type`. */
type Outcome =
  | { element: "passed" }
  | { element: "failure" | "error"; type: string }
  // Surefire's schema gives `<skipped>` no `type`.
  | { element: "skipped" };

function outcomeOf(run: ReportRun): Outcome {
  if (run.passed) return { element: "passed" };
  if (run.status === "error") return { element: "error", type: "error" };
  if (isRefusedKeySkip(run.status, run.error)) return { element: "error", type: "refused_key" };
  if (run.status === "skipped") return { element: "skipped" };
  const type = run.status === "completed" ? "failed_checks" : run.status;
  return { element: "failure", type };
}

function testcase(task: ReportTask, run: ReportRun, options: JunitOptions): string {
  const file =
    options.root === undefined ? task.taskFile : relativeIfInside(task.taskFile, options.root);
  const attributes = [
    `classname="${escapeXmlAttribute(classnameOf(file))}"`,
    `name="${escapeXmlAttribute(labelOfRun(task, run))}"`,
    `time="${seconds(run.durationMs)}"`,
  ];
  if (options.hasFileLine) {
    attributes.push(`file="${escapeXmlAttribute(file)}"`);
    const line = run.failedChecks[0]?.line;
    if (line !== undefined) attributes.push(`line="${line}"`);
  }
  const open = `    <testcase ${attributes.join(" ")}`;
  const outcome = outcomeOf(run);
  const retries = earlierAttemptElements(run, outcome.element === "passed");
  if (outcome.element === "passed" && retries.length === 0) return `${open}/>`;
  const lines = [`${open}>`];
  if (outcome.element !== "passed") {
    const message = `message="${escapeXmlAttribute(failureMessage(task, run))}"`;
    const type = outcome.element === "skipped" ? "" : ` type="${escapeXmlAttribute(outcome.type)}"`;
    const { element } = outcome;
    lines.push(
      `      <${element} ${message}${type}>${escapeXml(failureDetails(task, run))}</${element}>`,
    );
  }
  return [...lines, ...retries, "    </testcase>"].join("\n");
}

/**
 * The trial's earlier attempts, which failed on infrastructure, in Surefire's vocabulary for
 * reruns: `<flakyError>` when the attempt that counts passed, `<rerunError>` when it did not (both
 * schemas allow them after the outcome, with a `stackTrace` holding the error).
 */
function earlierAttemptElements(run: ReportRun, hasPassed: boolean): string[] {
  const element = hasPassed ? "flakyError" : "rerunError";
  return run.earlierAttempts.map((attempt, index) => {
    const kind = attempt.errorKind ?? attempt.status;
    const message = `attempt ${index + 1} of ${run.attempts}: ${attempt.status}${attempt.errorKind === null ? "" : ` (${attempt.errorKind})`}`;
    return `      <${element} message="${escapeXmlAttribute(message)}" type="${escapeXmlAttribute(kind)}"><stackTrace>${escapeXml(attempt.error ?? message)}</stackTrace></${element}>`;
  });
}

/** `tasks/fix.yaml` → `tasks/fix`: a consumer that keeps what follows the last dot keeps the path. */
function classnameOf(taskFile: string): string {
  return taskFile.replace(/\.ya?ml$/i, "");
}

/** `status: max_steps; failed checks: a, b`, or why a run was not run. */
function failureMessage(task: ReportTask, run: ReportRun): string {
  const flaky = task.isFlaky ? `; flaky: ${task.passedTrials} of ${task.trials} trials passed` : "";
  if (run.status === "skipped" && run.error !== null) return `${run.error}${flaky}`;
  const checks = run.failedChecks.map((check) => check.name);
  return checks.length === 0
    ? `status: ${run.status}${flaky}`
    : `status: ${run.status}; failed checks: ${checks.join(", ")}${flaky}`;
}

function failureDetails(task: ReportTask, run: ReportRun): string {
  const lines = [`status: ${run.status}`];
  if (task.trials > 1) {
    const flaky = task.isFlaky ? " (flaky)" : "";
    lines.push(
      `trial: ${run.trial} of ${task.trials}; ${task.passedTrials} of ${task.trials} trials passed${flaky}`,
    );
  }
  if (run.attempts > 1) {
    lines.push(`attempt: ${run.attempts} (the earlier ones failed on infrastructure)`);
  }
  if (run.error !== null) lines.push(`error: ${run.error}`);
  if (run.plan !== undefined) {
    lines.push(
      run.plan === null
        ? "plan: none written"
        : `plan: ${run.plan.completed} of ${run.plan.total} items completed`,
    );
  }
  for (const check of run.failedChecks) {
    lines.push(
      `failed check "${check.name}" (${check.kind}, ${task.taskFile}:${check.line}): ${check.message}`,
    );
    if (check.output !== null && check.output !== "") lines.push(check.output);
  }
  return lines.join("\n");
}

function seconds(ms: number): string {
  return (ms / 1_000).toFixed(3);
}

/** Characters XML 1.0 forbids even escaped (most C0 controls, lone surrogates, U+FFFE/U+FFFF). */
const INVALID_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe in XML content: `&`, `<`, `>` and quotes escaped, invalid characters dropped. */
function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, "")
    .replace(/[&<>"']/g, (char) => XML_ENTITIES[char] ?? char);
}

/** Text safe in a quoted attribute: also tabs and line breaks, which parsers would turn into spaces. */
function escapeXmlAttribute(text: string): string {
  return escapeXml(text).replace(/[\t\n\r]/g, (char) => `&#${char.charCodeAt(0)};`);
}

const XML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};
