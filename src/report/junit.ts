import { relativeIfInside } from "../fs/real-path.js";
import type { Report, ReportTask } from "./aggregate.js";
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
 * The report as JUnit XML for CI test views: one `<testcase>` per task (time in seconds), whose
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
  const { tasks, totals } = report;
  const errors = tasks.filter((task) => outcomeOf(task).element === "error").length;
  const skipped = tasks.filter((task) => outcomeOf(task).element === "skipped").length;
  const failures = tasks.filter((task) => outcomeOf(task).element === "failure").length;
  const counts = `tests="${tasks.length}" failures="${failures}" errors="${errors}"`;
  const time = `time="${seconds(totals.durationMs)}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${SUITE}" ${counts} ${time}>`,
    `  <testsuite name="${SUITE}" ${counts} skipped="${skipped}" ${time}>`,
    ...tasks.map((task) => testcase(task, options)),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** How a task shows in JUnit: nothing when it passed, else the element and its `type`. */
type Outcome =
  | { element: "passed" }
  | { element: "failure" | "error"; type: string }
  // Surefire's schema gives `<skipped>` no `type`.
  | { element: "skipped" };

function outcomeOf(task: ReportTask): Outcome {
  if (task.passed) return { element: "passed" };
  if (task.status === "error") return { element: "error", type: "error" };
  if (isRefusedKeySkip(task.status, task.error)) return { element: "error", type: "refused_key" };
  if (task.status === "skipped") return { element: "skipped" };
  const type = task.status === "completed" ? "failed_checks" : task.status;
  return { element: "failure", type };
}

function testcase(task: ReportTask, options: JunitOptions): string {
  const file =
    options.root === undefined ? task.taskFile : relativeIfInside(task.taskFile, options.root);
  const attributes = [
    `classname="${escapeXmlAttribute(classnameOf(file))}"`,
    `name="${escapeXmlAttribute(task.name)}"`,
    `time="${seconds(task.durationMs)}"`,
  ];
  if (options.hasFileLine) {
    attributes.push(`file="${escapeXmlAttribute(file)}"`);
    const line = task.failedChecks[0]?.line;
    if (line !== undefined) attributes.push(`line="${line}"`);
  }
  const open = `    <testcase ${attributes.join(" ")}`;
  const outcome = outcomeOf(task);
  if (outcome.element === "passed") return `${open}/>`;
  const message = `message="${escapeXmlAttribute(failureMessage(task))}"`;
  const type = outcome.element === "skipped" ? "" : ` type="${escapeXmlAttribute(outcome.type)}"`;
  const { element } = outcome;
  return [
    `${open}>`,
    `      <${element} ${message}${type}>${escapeXml(failureDetails(task))}</${element}>`,
    "    </testcase>",
  ].join("\n");
}

/** `tasks/fix.yaml` → `tasks/fix`: a consumer that keeps what follows the last dot keeps the path. */
function classnameOf(taskFile: string): string {
  return taskFile.replace(/\.ya?ml$/i, "");
}

/** `status: max_steps; failed checks: a, b`, or why a task was not run. */
function failureMessage(task: ReportTask): string {
  if (task.status === "skipped" && task.error !== null) return task.error;
  const checks = task.failedChecks.map((check) => check.name);
  return checks.length === 0
    ? `status: ${task.status}`
    : `status: ${task.status}; failed checks: ${checks.join(", ")}`;
}

function failureDetails(task: ReportTask): string {
  const lines = [`status: ${task.status}`];
  if (task.error !== null) lines.push(`error: ${task.error}`);
  if (task.plan !== undefined) {
    lines.push(
      task.plan === null
        ? "plan: none written"
        : `plan: ${task.plan.completed} of ${task.plan.total} items completed`,
    );
  }
  for (const check of task.failedChecks) {
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
