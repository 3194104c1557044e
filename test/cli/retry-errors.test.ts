import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { outputJsonSchemas } from "../../src/report/output-schemas.js";
import { SCHEMA_ID_BASE } from "../../src/task/json-schema.js";
import { strictAjv } from "../helpers/json-schema-validator.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { httpError, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";
import { isXmllintUsable, JUNIT_SCHEMAS, schemaErrors, suitesOf } from "../helpers/xmllint.js";

// --retry-errors: a trial that ended in error on infrastructure runs again, every attempt kept;
// a trial that failed for any other reason (a limit, a rejected request) does not.

const OVERLOADED = httpError(529, {
  type: "error",
  error: { type: "overloaded_error", message: "Overloaded" },
});

/** No retries inside the client: one 529 fails the model call for good. */
const env = (url: string) => ({
  ANTHROPIC_API_KEY: "sk-test",
  ANTHROPIC_BASE_URL: url,
  AGENT_RUN_MAX_RETRIES: "0",
});

const task = (extra = "") => ({
  "ws/a.txt": "a\n",
  "t.yaml": `prompt: Go.\nworkspace: ws\n${extra}`,
});

describe("--retry-errors", () => {
  test("an API failure is run again; the earlier attempt is kept and only the last counts", async () => {
    await using server = await startMockHttpServer();
    server.queue(OVERLOADED, reply().text("done"));
    await using dir = await tmpWorkspace({ files: task() });
    const run = await runCli(
      ["--retry-errors", "2", dir.path("t.yaml"), "--out", dir.path("out")],
      { env: env(server.url) },
    );

    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(run.stderr).toMatch(
      /^\[t\] error \(api\): model API error 529: Overloaded.*; running it again \(attempt 2 of 3\)$/m,
    );
    expect(run.stderr).toMatch(/^\[t\] completed on attempt 2 \(/m);
    expect(await readSummary(dir.path("out/t/attempts/1"))).toMatchObject({
      status: "error",
      error_kind: "api",
    });
    expect(existsSync(dir.path("out/t/attempts/1/.agent-run"))).toBe(true);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "completed",
      error_kind: null,
      attempt: 2,
      earlier_attempts: [
        { status: "error", error_kind: "api", error: expect.stringMatching(/529/), cost_usd: 0 },
      ],
    });
    expect((await readTranscript(dir.path("out/t")))[0]).toMatchObject({ attempt: 2 });
    const report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8"));
    expect(report.tasks[0]).toMatchObject({ passed: true, runs: [{ attempts: 2, passed: true }] });
    expect(report.totals.retries).toEqual({ attempts: 1, total_tokens: 0, cost_usd: 0 });
    // The one-trial table keeps its shape; the notes say what was run again.
    expect(run.stdout).toMatch(/^\| t +\| completed \| yes +\|/m);
    expect(run.stdout).toMatch(
      /^- t: attempt 2 counts; attempt 1 ended with error \(api\): model API error 529/m,
    );
    expect(run.stdout).toContain(
      "1/1 passed (100.0%), 15 tokens, $0.0001; plus 1 retried attempt: 0 tokens, $0.0000",
    );
  });

  test.each([
    {
      what: "a rejected request (400)",
      extra: "",
      first: httpError(400, {
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long" },
      }),
      status: "error",
      kind: "other",
    },
    {
      what: "max_steps",
      extra: "limits: { max_steps: 1 }\n",
      first: reply().toolUse("list_files", {}),
      status: "max_steps",
      kind: null,
    },
  ])("$what is not run again", async ({ extra, first, status, kind }) => {
    await using server = await startMockHttpServer();
    server.queue(first, reply().text("never asked"));
    await using dir = await tmpWorkspace({ files: task(extra) });
    const run = await runCli(
      ["--retry-errors", "2", dir.path("t.yaml"), "--out", dir.path("out")],
      { env: env(server.url) },
    );

    expect(run.exitCode).toBe(1);
    expect(server.requests).toHaveLength(1);
    const summary = await readSummary(dir.path("out/t"));
    expect(summary).toMatchObject({ status, error_kind: kind });
    expect(summary).not.toHaveProperty("attempt");
    expect(existsSync(dir.path("out/t/attempts"))).toBe(false);
  });

  test("a trial that keeps failing: every attempt kept, the last counts; JUnit shows the reruns", async () => {
    await using server = await startMockHttpServer();
    server.queue(OVERLOADED, OVERLOADED, OVERLOADED, reply().text("never asked"));
    await using dir = await tmpWorkspace({ files: task() });
    const run = await runCli(
      ["--retry-errors", "2", dir.path("t.yaml"), "--out", dir.path("out")],
      { env: env(server.url) },
    );

    expect(run.exitCode).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect((await readdir(dir.path("out/t/attempts"))).sort()).toEqual(["1", "2"]);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "error",
      error_kind: "api",
      attempt: 3,
    });
    const junit = await runCli(["report", dir.path("out"), "--junit", dir.path("junit.xml")]);
    expect(junit.exitCode).toBe(0);
    const xml = await readFile(dir.path("junit.xml"), "utf8");
    expect(
      xml.match(/<rerunError message="attempt \d of 3: error \(api\)" type="api">/g),
    ).toHaveLength(2);
    expect(xml).toMatch(/<error message="status: error" type="error">/);
    if (isXmllintUsable) {
      expect(schemaErrors(xml, JUNIT_SCHEMAS.jenkins)).toBe("");
      for (const suite of suitesOf(xml))
        expect(schemaErrors(suite, JUNIT_SCHEMAS.surefire)).toBe("");
    }
  });

  test("a workspace that cannot be copied is run again, at no model call", async () => {
    await using dir = await tmpWorkspace({
      files: {
        ...task("replies: r.yaml\n"),
        "r.yaml": "- content: [{ type: text, text: done }]\n",
      },
    });
    execFileSync("mkfifo", [dir.path("ws/pipe")]);
    const run = await runCli(
      ["--offline", "--retry-errors", "1", dir.path("t.yaml"), "--out", dir.path("out")],
      {},
    );

    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^\[t\] error \(workspace\): could not prepare the workspace/m);
    expect(await readSummary(dir.path("out/t/attempts/1"))).toMatchObject({
      error_kind: "workspace",
    });
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "error",
      error_kind: "workspace",
      attempt: 2,
      steps: 0,
    });
  });

  test("with trials: a flaky infrastructure failure passes on its second attempt", async () => {
    await using server = await startMockHttpServer();
    // -j 1: trial 1 fails, then runs again; then trial 2.
    server.queue(OVERLOADED, reply().text("done"), reply().text("done"));
    await using dir = await tmpWorkspace({ files: task() });
    const run = await runCli(
      [
        ...["--trials", "2", "-j", "1", "--retry-errors", "1"],
        ...[dir.path("t.yaml"), "--out", dir.path("out")],
      ],
      { env: env(server.url) },
    );

    expect(run.exitCode).toBe(0);
    expect(existsSync(dir.path("out/t/trial-1/attempts/1/summary.json"))).toBe(true);
    expect(await readSummary(dir.path("out/t/trial-1"))).toMatchObject({
      trial: { index: 1, count: 2 },
      attempt: 2,
    });
    // What a trial retried writes is what schema/ publishes.
    const ajv = strictAjv();
    for (const { schema } of outputJsonSchemas()) ajv.addSchema(schema);
    const valid = async (schema: string, data: unknown) =>
      ajv.getSchema(`${SCHEMA_ID_BASE}${schema}`)?.(data) === true;
    expect(await valid("summary.schema.json", await readSummary(dir.path("out/t/trial-1")))).toBe(
      true,
    );
    const init = (await readTranscript(dir.path("out/t/trial-1")))[0];
    expect(await valid("transcript/init-line.schema.json", init)).toBe(true);
    const report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8"));
    expect(await valid("report.schema.json", report)).toBe(true);
    // The table gains an attempts column; every trial passed, so no task is flaky.
    expect(run.stdout).toMatch(/^\| t +\| +2\/2 \| +100\.0% \| +\| 2 completed \| +3 \|/m);
    const junit = await runCli(["report", dir.path("out"), "--junit", dir.path("junit.xml")]);
    expect(junit.exitCode).toBe(0);
    const xml = await readFile(dir.path("junit.xml"), "utf8");
    expect(xml).toMatch(
      /<testcase classname="[^"]*" name="t\/trial-1" time="[\d.]+">\n\s+<flakyError message="attempt 1 of 2: error \(api\)" type="api"><stackTrace>model API error 529/,
    );
    if (isXmllintUsable) {
      expect(schemaErrors(xml, JUNIT_SCHEMAS.jenkins)).toBe("");
      for (const suite of suitesOf(xml))
        expect(schemaErrors(suite, JUNIT_SCHEMAS.surefire)).toBe("");
    }
  });
});
