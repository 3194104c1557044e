import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { outputJsonSchemas } from "../../src/report/output-schemas.js";
import { SCHEMA_ID_BASE } from "../../src/task/json-schema.js";
import { strictAjv } from "../helpers/json-schema-validator.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { httpError, type ReplyBuilder, reply, type Scripted } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 16, section 3: real outputs of offline runs validate against the published schemas, under
// Ajv strict: summary.json, report.json (a batch's and the report command's), and every transcript
// line against the schema of its kind.

const ajv = strictAjv();
for (const { schema } of outputJsonSchemas()) ajv.addSchema(schema);
const validator = (path: string): ValidateFunction => {
  const validate = ajv.getSchema(`${SCHEMA_ID_BASE}${path}`);
  if (validate === undefined) throw new Error(`no schema ${path}`);
  return validate;
};

/** Each line kind's schema with the `type` (and `subtype`) its lines carry. */
const lineKinds = outputJsonSchemas()
  .filter((file) => file.path.startsWith("transcript/"))
  .map((file) => {
    const properties = file.schema.properties as Record<string, { const?: unknown }>;
    return {
      path: file.path,
      type: properties.type?.const,
      subtype: properties.subtype?.const,
      validate: validator(file.path),
    };
  });

/** Schema errors of `data`, as `path: message` lines ([] when it validates). */
function errorsOf(validate: ValidateFunction, data: unknown): string[] {
  return validate(data)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath}: ${error.message}`);
}

/** fix-failing-test's offline run with other settings, as a task file's text. */
const variant = (name: string, ...settings: string[]) =>
  [
    `name: ${name}`,
    "prompt: Fix the failing test",
    `workspace: ${resolve("fixtures/workspaces/calculator")}`,
    `replies: ${resolve("fixtures/replies/fix-failing-test.yaml")}`,
    ...settings,
  ].join("\n");

/** Lines and endings the example tasks do not reach: a limit, a failed check, a trimmed context. */
const VARIANTS = {
  "cut-short.yaml": variant(
    "cut-short",
    "limits: { max_steps: 1 }",
    "checks: [{ file_exists: no-such-file.txt }]",
  ),
  "trimmed.yaml": variant("trimmed", "context: { max_tokens: 300 }"),
};

/** Runs a task against a local model server: one retried call, or calls that all fail. */
async function runAgainstServer(out: string, items: Array<Scripted | ReplyBuilder>) {
  await using server = await startMockHttpServer();
  await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
  server.queue(...items);
  const task = join(dir, `${basename(out)}.yaml`);
  await writeFile(task, `prompt: Go.\nworkspace: ${ws.root}\n`);
  // Awaited here, so the server and the workspace outlive the run.
  return await runCli([task, "--out", out], {
    env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url },
  });
}

const BATCHES = ["examples", "variants", "retried", "failed"];

let dir: string;
let runDirs: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-output-schemas-"));
  const examples = await runCli(["--offline", "tasks/*.yaml", "--out", join(dir, "examples")]);
  const variantFiles = Object.keys(VARIANTS).map((file) => join(dir, file));
  for (const [file, text] of Object.entries(VARIANTS)) await writeFile(join(dir, file), text);
  const variants = await runCli(["--offline", ...variantFiles, "--out", join(dir, "variants")]);
  const retried = await runAgainstServer(join(dir, "retried"), [
    httpError(529, undefined, { "retry-after-ms": "1" }),
    reply().text("fine"),
  ]);
  const failures = Array.from({ length: 5 }, () =>
    httpError(500, undefined, { "retry-after-ms": "1" }),
  );
  const failed = await runAgainstServer(join(dir, "failed"), failures);
  const batches = BATCHES.map((batch) => join(dir, batch));
  const report = await runCli(["report", ...batches, "--json", join(dir, "report.json")]);
  const exitCodes = [examples, variants, retried, failed, report].map((run) => run.exitCode);
  expect(exitCodes).toEqual([0, 1, 0, 1, 0]);
  runDirs = [];
  for (const batch of BATCHES) {
    const entries = await readdir(join(dir, batch), { withFileTypes: true });
    for (const entry of entries)
      if (entry.isDirectory()) runDirs.push(join(dir, batch, entry.name));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("real outputs against schema/", () => {
  test("every summary.json validates against summary.schema.json", async () => {
    const validate = validator("summary.schema.json");
    const summaries = await Promise.all(runDirs.map(readSummary));

    expect(new Set(summaries.map((summary) => summary.status))).toEqual(
      new Set(["completed", "max_steps", "error"]),
    );
    expect(summaries.map((summary) => [summary.name, errorsOf(validate, summary)])).toEqual(
      summaries.map((summary) => [summary.name, []]),
    );
  });

  test("the batches' report.json and the report command's validate against report.schema.json", async () => {
    const validate = validator("report.schema.json");
    const files = [
      ...BATCHES.map((batch) => join(dir, batch, "report.json")),
      join(dir, "report.json"),
    ];
    const reports = await Promise.all(
      files.map(async (file) => JSON.parse(await readFile(file, "utf8")) as { tasks: unknown[] }),
    );

    expect(reports.map((report) => report.tasks.length)).toEqual([11, 2, 1, 1, runDirs.length]);
    expect(reports.map((report) => errorsOf(validate, report))).toEqual(files.map(() => []));
  });

  test("every transcript line validates against the schema of its kind, and the one for any line", async () => {
    const anyLine = validator("transcript-line.schema.json");
    const seen = new Set<string>();
    const problems: unknown[] = [];
    for (const runDir of runDirs) {
      for (const [index, line] of (await readTranscript(runDir)).entries()) {
        const kinds = lineKinds.filter(
          (kind) =>
            kind.type === line.type &&
            (kind.subtype === undefined || kind.subtype === line.subtype),
        );
        const where = `${runDir}:${index + 1}`;
        if (kinds.length !== 1) problems.push([where, kinds.map((kind) => kind.path)]);
        for (const kind of kinds) {
          seen.add(kind.path);
          const errors = [...errorsOf(kind.validate, line), ...errorsOf(anyLine, line)];
          if (errors.length > 0) problems.push([where, kind.path, errors]);
        }
      }
    }

    expect(problems).toEqual([]);
    // Every kind is exercised; a new kind needs a run here that writes it.
    expect([...seen].sort()).toEqual(lineKinds.map((kind) => kind.path).sort());
  });
});
