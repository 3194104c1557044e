import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildReport, type Report } from "../../src/report/aggregate.js";
import { formatJunit } from "../../src/report/junit.js";
import { loadRunSummaries } from "../../src/report/load-runs.js";
import { writeMixedShards } from "../helpers/report-fixtures.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { failedCheck, summaryBody, writeRun } from "../helpers/run-summaries.js";

let tmp: string;
let mixed: Report;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-junit-"));
  mixed = buildReport(await loadRunSummaries(await writeMixedShards(tmp)));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

type Attributes = Record<string, string>;
type Outcome = Attributes & { "#text"?: string };
type TestCase = Attributes & { failure?: Outcome; error?: Outcome; skipped?: Outcome };
type Suite = Attributes & { testcase: TestCase[] };

/** Validates the XML, then parses it (attributes as `@_name`, every testcase in a list). */
function parseJunit(xml: string): { testsuites: Attributes & { testsuite: Suite } } {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    // Decodes numeric character references (`&#10;`), which fast-xml-parser leaves alone by default.
    htmlEntities: true,
    isArray: (name) => name === "testcase",
  });
  return parser.parse(xml);
}

describe("formatJunit", () => {
  test("the offline examples: one passing testcase per task, times in seconds", async () => {
    const out = join(tmp, "batch");
    expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", out])).exitCode).toBe(0);
    const report = buildReport(await loadRunSummaries([out]));
    const { testsuites } = parseJunit(formatJunit(report));
    const suite = testsuites.testsuite;

    expect([testsuites.tests, testsuites.failures, testsuites.errors]).toEqual(["3", "0", "0"]);
    expect([suite.name, suite.tests, suite.failures, suite.errors]).toEqual([
      "agent-run",
      "3",
      "0",
      "0",
    ]);
    expect(suite.testcase.map((testcase) => [testcase.classname, testcase.name])).toEqual([
      ["tasks/add-farewell", "add-farewell"],
      ["tasks/fix-failing-test", "fix-failing-test"],
      ["tasks/rename-function", "rename-function"],
    ]);
    expect(suite.testcase.map((testcase) => Number(testcase.time) * 1000)).toEqual(
      report.tasks.map((task) => expect.closeTo(task.runs[0]?.durationMs ?? -1, 6)),
    );
    expect(suite.testcase.every((testcase) => testcase.failure === undefined)).toBe(true);
  });

  test("a failed task's failure names the status and the failed checks, details in the body", () => {
    const suite = parseJunit(formatJunit(mixed)).testsuites.testsuite;
    const [alpha, beta, gamma] = suite.testcase;

    expect([suite.tests, suite.failures, suite.errors, suite.time]).toEqual([
      "3",
      "2",
      "0",
      "66.000",
    ]);
    expect(alpha?.failure).toBeUndefined();
    expect(beta?.time).toBe("61.000");
    expect(beta?.failure).toEqual({
      message: "status: max_steps; failed checks: tests pass",
      type: "max_steps",
      "#text": [
        "status: max_steps",
        "error: stopped after 8 steps (limits.max_steps)",
        'failed check "tests pass" (run, tasks/beta.yaml:12): `npm test` exited with 1',
        "1 failing test",
      ].join("\n"),
    });
    expect(gamma?.failure).toMatchObject({
      message: 'status: completed; failed checks: has <export> & "quotes", no debug',
      type: "failed_checks",
    });
  });

  test("escapes <, &, \" and ' in names and messages", () => {
    const xml = formatJunit(mixed);
    const gamma = parseJunit(xml).testsuites.testsuite.testcase[2];

    expect(xml).toContain(
      'message="status: completed; failed checks: has &lt;export&gt; &amp; &quot;quotes&quot;, no debug"',
    );
    expect(gamma?.failure?.["#text"]).toContain(
      'failed check "has <export> & "quotes"" (run, tasks/gamma.yaml:12): src/app.js does not contain "export" & <main>',
    );
  });

  test("drops characters XML 1.0 forbids and keeps line breaks in attributes", async () => {
    const dir = join(tmp, "controls");
    const message = "colour \u001b[31mred\u001b[0m, nul \u0000, line\nbreak, it's";
    await writeRun(
      dir,
      "controls",
      summaryBody("controls", { passed: false, checks: [failedCheck(message, message)] }),
    );
    const xml = formatJunit(buildReport(await loadRunSummaries([dir])));
    const failure = parseJunit(xml).testsuites.testsuite.testcase[0]?.failure;

    expect([xml.includes("\u0000"), xml.includes("\u001b")]).toEqual([false, false]);
    expect(xml).toContain("line&#10;break, it&apos;s");
    expect(failure?.message).toBe(
      "status: completed; failed checks: colour [31mred[0m, nul , line\nbreak, it's",
    );
  });

  test("a run that errored is an <error>, a skipped one <skipped>, one refused its key an <error>", async () => {
    const dir = join(tmp, "errored");
    await writeRun(
      dir,
      "crashed",
      summaryBody("crashed", { status: "error", passed: false, error: "HTTP 529 overloaded" }),
    );
    await writeRun(
      dir,
      "not-run",
      summaryBody("not-run", { status: "skipped", passed: false, error: null }),
    );
    const refused = 'not run: the API refused the key in task "crashed"; check ANTHROPIC_API_KEY';
    await writeRun(
      dir,
      "refused",
      summaryBody("refused", { status: "skipped", passed: false, error: refused }),
    );
    const suite = parseJunit(formatJunit(buildReport(await loadRunSummaries([dir])))).testsuites
      .testsuite;

    expect([suite.tests, suite.failures, suite.errors, suite.skipped]).toEqual([
      "3",
      "0",
      "2",
      "1",
    ]);
    expect(suite.testcase[0]?.error).toMatchObject({ type: "error", message: "status: error" });
    expect(suite.testcase[0]?.error?.["#text"]).toBe("status: error\nerror: HTTP 529 overloaded");
    expect(suite.testcase[1]?.skipped).toEqual({
      message: "status: skipped",
      "#text": "status: skipped",
    });
    expect(suite.testcase[2]?.error).toMatchObject({ type: "refused_key", message: refused });
  });
});
