import { spawnSync } from "node:child_process";
import { join } from "node:path";

/** The JUnit schemas copied into `test/fixtures/junit` (each file says where from). */
export const JUNIT_SCHEMAS = {
  surefire: join(import.meta.dirname, "../fixtures/junit/surefire-test-report.xsd"),
  jenkins: join(import.meta.dirname, "../fixtures/junit/junit-10.xsd"),
};

const isXmllintFound = spawnSync("xmllint", ["--version"]).status === 0;

/**
 * Whether the schema tests run: where xmllint is found, and under `CI=true`, which `.ci/run` sets
 * up with libxml2-utils, so that there a missing xmllint fails the tests instead of skipping them.
 */
export const isXmllintUsable = isXmllintFound || process.env.CI === "true";

if (!isXmllintUsable) {
  console.warn("xmllint not found (Debian: libxml2-utils): the JUnit schema tests are skipped");
}

/** Validates `xml` against the XSD at `schema`: xmllint's complaints, or "" when it is valid. */
export function schemaErrors(xml: string, schema: string): string {
  if (!isXmllintFound) {
    throw new Error("xmllint not found, and CI=true requires it: install libxml2-utils");
  }
  const run = spawnSync("xmllint", ["--noout", "--schema", schema, "-"], {
    input: xml,
    encoding: "utf8",
  });
  if (run.error !== undefined) throw run.error;
  return run.status === 0 ? "" : run.stderr;
}

/** Each `<testsuite>` of a JUnit file as a document of its own, as Surefire writes one per file. */
export function suitesOf(xml: string): string[] {
  const suites = xml.match(/<testsuite\b[\s\S]*?<\/testsuite>/g) ?? [];
  return suites.map((suite) => `<?xml version="1.0" encoding="UTF-8"?>\n${suite}\n`);
}
