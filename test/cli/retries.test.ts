import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { httpError, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Retries are tested against a real server on 127.0.0.1: with msw, the SDK's cancelling of the
// failed response's body never settles on Node 20, so the retry would hang inside the test.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-retry-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("model API retries", () => {
  test("a 529 then a 429 are retried, each a transcript line of its own, and the run goes on", async () => {
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    server.queue(
      httpError(529, undefined, { "retry-after-ms": "5" }),
      httpError(429, undefined, { "retry-after": "0.01" }),
      reply().text("fine"),
    );
    const task = join(dir, "task.yaml");
    await writeFile(task, `prompt: Go.\nworkspace: ${ws.root}\n`);
    const run = await runCli([task, "--out", join(dir, "out")], {
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url },
    });

    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(3);
    const lines = await readTranscript(join(dir, "out", "task"));
    expect(lines.slice(1, 3)).toMatchObject([
      {
        type: "system",
        subtype: "api_retry",
        step: 1,
        attempt: 1,
        error_status: 529,
        retry_delay_ms: 5,
      },
      {
        type: "system",
        subtype: "api_retry",
        step: 1,
        attempt: 2,
        error_status: 429,
        retry_delay_ms: 10,
      },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed" });
    expect(run.stderr).toMatch(/model call failed \(529\); retry 1 of 4/);
  });

  test("when retries run out the task ends with status error naming the last failure", async () => {
    await using server = await startMockHttpServer();
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    for (let i = 0; i < 5; i += 1)
      server.queue(httpError(500, undefined, { "retry-after-ms": "1" }));
    const task = join(dir, "task.yaml");
    await writeFile(task, `prompt: Go.\nworkspace: ${ws.root}\n`);
    const run = await runCli([task, "--out", join(dir, "out")], {
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url },
    });

    expect(run.exitCode).toBe(1);
    expect(server.requests).toHaveLength(5);
    const lines = await readTranscript(join(dir, "out", "task"));
    expect(lines.filter((line) => line.subtype === "api_retry")).toHaveLength(4);
    expect(await readSummary(join(dir, "out", "task"))).toMatchObject({
      status: "error",
      error: expect.stringMatching(/500/),
    });
  });
});
