import { glob } from "tinyglobby";
import { xml2json } from "xml-js";
import { parseStringPromise } from "xml2js";

// JUnit XML read the way two GitHub actions read it, with the XML library each uses and the
// attributes and elements each reads (written from their source, not copied):
// - dorny/test-reporter's `java-junit` parser (src/parsers/java-junit/java-junit-parser.ts), xml2js;
// - mikepenz/action-junit-report (src/testParser.ts), xml-js in compact mode.

/** A test case as dorny/test-reporter shows it. */
export type DornyTest = {
  name: string;
  result: "success" | "failed" | "skipped";
  timeMs: number;
  /** `<failure>`, else `<error>`: its message (`type: message` when typed) and its text. */
  error?: { message: string | undefined; details: string | undefined };
};

/** A dorny/test-reporter run: suites, each with its tests grouped by classname. */
export type DornyRun = {
  timeMs: number | undefined;
  suites: { name: string; timeMs: number; groups: { name: string; tests: DornyTest[] }[] }[];
};

type XmlNode = { $?: Record<string, string>; _?: string } | string;
type Xml2jsCase = { $: Record<string, string> } & Record<string, XmlNode[] | undefined>;
type Xml2jsSuite = { $: Record<string, string>; testcase?: Xml2jsCase[] };
type Xml2jsReport = {
  testsuites?: { $?: Record<string, string>; testsuite?: Xml2jsSuite[] };
  testsuite?: Xml2jsSuite;
};

/** Reads `xml` as dorny/test-reporter's java-junit parser does (xml2js, default options). */
export async function readAsDorny(xml: string): Promise<DornyRun> {
  const parsed = (await parseStringPromise(xml)) as Xml2jsReport;
  const root = parsed.testsuites ?? {
    $: { time: parsed.testsuite?.$.time ?? "" },
    testsuite: parsed.testsuite === undefined ? [] : [parsed.testsuite],
  };
  const seconds = Number.parseFloat(root.$?.time ?? "");
  return {
    timeMs: Number.isNaN(seconds) ? undefined : seconds * 1000,
    suites: (root.testsuite ?? []).map((suite) => ({
      name: (suite.$.name ?? "").trim(),
      timeMs: Number.parseFloat(suite.$.time ?? "") * 1000,
      groups: dornyGroups(suite),
    })),
  };
}

/** Tests grouped by classname; a classname equal to the suite's name is the unnamed group. */
function dornyGroups(suite: Xml2jsSuite): { name: string; tests: DornyTest[] }[] {
  const groups = new Map<string, DornyTest[]>();
  for (const testcase of suite.testcase ?? []) {
    const classname = testcase.$.classname ?? "";
    const group = classname === suite.$.name ? "" : classname;
    groups.set(group, [...(groups.get(group) ?? []), dornyTest(testcase)]);
  }
  return [...groups].map(([name, tests]) => ({ name, tests }));
}

function dornyTest(testcase: Xml2jsCase): DornyTest {
  const failed = testcase.failure !== undefined || testcase.error !== undefined;
  const result = failed ? "failed" : testcase.skipped !== undefined ? "skipped" : "success";
  const first = (testcase.failure ?? testcase.error)?.[0];
  const test: DornyTest = {
    name: (testcase.$.name ?? "").trim(),
    result,
    timeMs: Number.parseFloat(testcase.$.time ?? "") * 1000,
  };
  if (first === undefined) return test;
  if (typeof first === "string") return { ...test, error: { message: undefined, details: first } };
  const message = first.$?.message;
  const type = first.$?.type;
  return {
    ...test,
    error: { message: type === undefined ? message : `${type}: ${message}`, details: first._ },
  };
}

/** An annotation as mikepenz/action-junit-report creates it. */
export type MikepenzAnnotation = {
  path: string;
  line: number;
  status: "success" | "failure" | "skipped";
  level: "failure" | "notice";
  title: string;
  message: string;
  details: string;
};

/** mikepenz/action-junit-report's counts and annotations (one per test case). */
export type MikepenzResult = {
  totalCount: number;
  skipped: number;
  failed: number;
  passed: number;
  annotations: MikepenzAnnotation[];
};

type CompactNode = {
  _attributes?: Record<string, string>;
  _text?: string | string[];
  _cdata?: string;
};
type CompactCase = CompactNode & Record<string, CompactNode | CompactNode[] | undefined>;
type CompactSuite = CompactNode & {
  testcase?: CompactCase | CompactCase[];
  testsuite?: CompactSuite | CompactSuite[];
};

const listOf = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * Reads `xml` as mikepenz/action-junit-report does with its defaults, resolving each failed
 * test's file under `cwd` (the workspace it globs from).
 */
export async function readAsMikepenz(xml: string, cwd: string): Promise<MikepenzResult> {
  const report = JSON.parse(xml2json(xml, { compact: true })) as {
    testsuites?: CompactSuite;
    testsuite?: CompactSuite | CompactSuite[];
  };
  const suites = report.testsuite ?? report.testsuites?.testsuite;
  const annotations: MikepenzAnnotation[] = [];
  let skipped = 0;
  for (const suite of listOf(suites)) {
    for (const testcase of listOf(suite.testcase)) {
      const annotation = await mikepenzAnnotation(testcase, suite, cwd);
      if (annotation.status === "skipped") skipped++;
      annotations.push(annotation);
    }
  }
  const failed = annotations.filter((annotation) => annotation.level === "failure").length;
  const totalCount = annotations.length;
  return { totalCount, skipped, failed, passed: totalCount - failed - skipped, annotations };
}

function textOf(node: CompactNode | undefined): string {
  const text = node?._cdata ?? node?._text;
  return (Array.isArray(text) ? text.join("") : (text ?? "")).trim();
}

async function mikepenzAnnotation(
  testcase: CompactCase,
  suite: CompactSuite,
  cwd: string,
): Promise<MikepenzAnnotation> {
  const attributes = testcase._attributes ?? {};
  const name = attributes.name ?? "";
  const failure = listOf(testcase.failure)[0];
  const error = listOf(testcase.error)[0];
  const hasFailed = failure !== undefined || error !== undefined;
  const isSkipped = testcase.skipped !== undefined;
  const details = textOf(failure) || textOf(error);
  const message = (
    failure?._attributes?.message ??
    error?._attributes?.message ??
    (details.split("\n").slice(0, 2).join("\n") || name)
  ).trim();
  const position = resolveFileAndLine(
    attributes.file ?? failure?._attributes?.file ?? suite._attributes?.file,
    attributes.line ?? failure?._attributes?.line ?? suite._attributes?.line,
    attributes.classname ?? name,
    details,
  );
  const isFailure = hasFailed && !isSkipped;
  const path = isFailure ? await resolvePath(position.fileName, cwd) : position.fileName;
  return {
    path,
    line: position.line,
    status: isSkipped ? "skipped" : hasFailed ? "failure" : "success",
    level: isFailure ? "failure" : "notice",
    title: position.fileName === name ? name : `${position.fileName}.${name}`,
    message,
    details,
  };
}

/**
 * The file: the `file` attribute, else the classname's part after its last dot. The line: the
 * `line` attribute, else the last ` <…file…>:N` in the failure's text, else 1.
 */
function resolveFileAndLine(
  file: string | undefined,
  line: string | undefined,
  classname: string,
  details: string,
): { fileName: string; line: number } {
  const fileName = file ?? classname.split(".").at(-1) ?? "";
  const lineNumber = Number.parseInt(line ?? "", 10);
  if (fileName !== "" && !Number.isNaN(lineNumber)) return { fileName, line: lineNumber };
  const escaped = fileName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace("::", "/");
  const matches = details.match(new RegExp(` [^ ]*${escaped}.*?:\\d+`, "g"));
  if (matches === null) return { fileName, line: Number.isNaN(lineNumber) ? 1 : lineNumber };
  const found = Number.parseInt(matches.at(-1)?.split(":").at(-1) ?? "", 10);
  return { fileName, line: Number.isNaN(found) ? -1 : found };
}

/** The first file matching `**\/<fileName>.*` under `cwd` outside build folders, else `fileName`. */
async function resolvePath(fileName: string, cwd: string): Promise<string> {
  const normalized = fileName.replace(/^\.\//, "");
  const found = await glob([`**/${normalized}.*`], { cwd, dot: false });
  return found.find((path) => !/\/build\/|\/__pycache__\//.test(`/${path}`)) ?? normalized;
}
