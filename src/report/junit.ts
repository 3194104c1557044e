import type { Report, ReportTask } from "./aggregate.js";

const SUITE = "agent-run";

/**
 * The report as JUnit XML for CI test views: one `<testcase>` per task (time in seconds); a failed
 * task gets `<failure type="<status>">` (`<error>` when the run itself errored, `<skipped>` when
 * it never ran), its message naming the status and the failed checks, details in the body.
 */
export function formatJunit(report: Report): string {
  const { tasks, totals } = report;
  const errors = tasks.filter((task) => outcomeOf(task) === "error").length;
  const skipped = tasks.filter((task) => outcomeOf(task) === "skipped").length;
  const failures = tasks.filter((task) => outcomeOf(task) === "failure").length;
  const counts = `tests="${tasks.length}" failures="${failures}" errors="${errors}"`;
  const time = `time="${seconds(totals.durationMs)}"`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${SUITE}" ${counts} ${time}>`,
    `  <testsuite name="${SUITE}" ${counts} skipped="${skipped}" ${time}>`,
    ...tasks.map(testcase),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

type Outcome = "passed" | "failure" | "error" | "skipped";

function outcomeOf(task: ReportTask): Outcome {
  if (task.passed) return "passed";
  if (task.status === "error") return "error";
  if (task.status === "skipped") return "skipped";
  return "failure";
}

function testcase(task: ReportTask): string {
  const open = `    <testcase classname="${SUITE}" name="${escapeXmlAttribute(task.name)}" time="${seconds(task.durationMs)}"`;
  const outcome = outcomeOf(task);
  if (outcome === "passed") return `${open}/>`;
  const message = escapeXmlAttribute(failureMessage(task));
  const type = escapeXmlAttribute(task.status);
  return [
    `${open}>`,
    `      <${outcome} message="${message}" type="${type}">${escapeXml(failureDetails(task))}</${outcome}>`,
    "    </testcase>",
  ].join("\n");
}

/** `status: max_steps; failed checks: a, b`. */
function failureMessage(task: ReportTask): string {
  const checks = task.failedChecks.map((check) => check.name);
  return checks.length === 0
    ? `status: ${task.status}`
    : `status: ${task.status}; failed checks: ${checks.join(", ")}`;
}

function failureDetails(task: ReportTask): string {
  const lines = [`status: ${task.status}`];
  if (task.error !== null) lines.push(`error: ${task.error}`);
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
