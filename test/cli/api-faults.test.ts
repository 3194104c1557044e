import { writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { brokenStream, httpError, reply, streamError } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// A real server on 127.0.0.1 (not msw): the SDK's retry path and dropped connections need real sockets.

async function tasks(names: string[]) {
  const dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
  for (const name of names)
    await writeFile(dir.path(`${name}.yaml`), "prompt: Go.\nworkspace: ws\n");
  return dir;
}

function env(url: string) {
  return { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: url, AGENT_RUN_RETRY_DELAY: "5ms" };
}

describe("model API faults", () => {
  test("a stream that breaks mid-message is retried, a transcript line of its own, and the run goes on", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["t"]);
    server.queue(
      brokenStream(reply().text("half a reply").toolUse("list_files", {}), 4),
      reply().text("done"),
    );

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: env(server.url),
    });

    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(2);
    const retry = (await readTranscript(dir.path("out/t"))).find(
      (line) => line.subtype === "api_retry",
    );
    expect(retry).toMatchObject({
      attempt: 1,
      error_status: null,
      retry_delay_ms: 5,
      error: "unknown",
      error_message: expect.stringMatching(/^stream interrupted/),
    });
  });

  test.each([
    ["timeout_error", 0],
    ["overloaded_error", 0],
    ["some_new_error", 0],
    ["invalid_request_error", 1],
  ])("an error event of type %s inside the stream: exit %i", async (errorType, exitCode) => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["t"]);
    server.queue(streamError(reply().text("half"), errorType), reply().text("done"));

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: env(server.url),
    });

    expect(run.exitCode).toBe(exitCode);
    expect(server.requests).toHaveLength(exitCode === 0 ? 2 : 1);
    const retries = (await readTranscript(dir.path("out/t"))).filter(
      (line) => line.subtype === "api_retry",
    );
    expect(retries).toHaveLength(exitCode === 0 ? 1 : 0);
  });

  test("two 529s then a reply: retries cost the run nothing else", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["t"]);
    server.queue(
      httpError(529, undefined, { "retry-after-ms": "1" }),
      httpError(529, undefined, { "retry-after-ms": "1" }),
      reply().text("ok"),
    );

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: env(server.url),
    });

    expect(run.exitCode).toBe(0);
    expect(
      (await readTranscript(dir.path("out/t"))).filter((line) => line.subtype === "api_retry"),
    ).toHaveLength(2);
  });

  test("a retried 529 or 429 records the API's own words, the category and the status", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["t"]);
    server.queue(
      httpError(
        529,
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        { "retry-after-ms": "1" },
      ),
      httpError(
        429,
        { type: "error", error: { type: "rate_limit_error", message: "slow down, please" } },
        { "retry-after-ms": "1" },
      ),
      reply().text("ok"),
    );

    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: env(server.url),
    });

    expect(run.exitCode).toBe(0);
    const retries = (await readTranscript(dir.path("out/t"))).filter(
      (line) => line.subtype === "api_retry",
    );
    expect(retries).toMatchObject([
      { error: "overloaded", error_status: 529, error_message: "Overloaded", retry_delay_ms: 1 },
      { error: "rate_limit", error_status: 429, error_message: "slow down, please" },
    ]);
  });

  test("an API that never recovers ends that task with error while the batch finishes the others", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["a", "b"]);
    for (let i = 0; i < 3; i += 1)
      server.queue(httpError(503, undefined, { "retry-after-ms": "1" }));
    server.queue(reply().text("b is fine"));

    const run = await runCli(
      ["-j", "1", dir.path("a.yaml"), dir.path("b.yaml"), "--out", dir.path("out")],
      {
        env: { ...env(server.url), AGENT_RUN_MAX_RETRIES: "2" },
      },
    );

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("out/a"))).toMatchObject({
      status: "error",
      error: expect.stringMatching(/503/),
    });
    expect(await readSummary(dir.path("out/b"))).toMatchObject({ status: "completed" });
    const lines = await readTranscript(dir.path("out/a"));
    expect(lines.filter((line) => line.subtype === "api_retry")).toHaveLength(2);
    expect(lines.at(-2)).toMatchObject({ type: "system", subtype: "api_error", error_status: 503 });
  });

  test("a refused key is a configuration error: exit 2, the other tasks not started, one message at the end", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tasks(["a", "b", "c"]);
    server.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }),
    );

    const run = await runCli(
      [
        "-j",
        "1",
        dir.path("a.yaml"),
        dir.path("b.yaml"),
        dir.path("c.yaml"),
        "--out",
        dir.path("out"),
      ],
      {
        env: env(server.url),
      },
    );

    expect(run.exitCode).toBe(2);
    expect(server.requests).toHaveLength(1);
    expect(await readSummary(dir.path("out/a"))).toMatchObject({
      status: "error",
      error: expect.stringMatching(/invalid x-api-key.*ANTHROPIC_API_KEY/),
    });
    for (const name of ["b", "c"]) {
      expect(await readSummary(dir.path(`out/${name}`))).toMatchObject({
        status: "skipped",
        error: 'not run: the API refused the key in task "a"; check ANTHROPIC_API_KEY',
      });
    }
    expect(run.stderr.match(/invalid x-api-key/g)).toHaveLength(1);
    expect(run.stderr.split("\n").at(-1)).toBe(
      `agent-run: the API refused the key (401) in task "a", so 2 more tasks using it were not run; check ANTHROPIC_API_KEY (the anthropic key sent to ${server.url})`,
    );
    expect(run.stderr.match(/agent-run: the API refused the key/g)).toHaveLength(1);
  });

  test("a key refused on one provider does not stop a task on another whose key is fine", async () => {
    await using refusing = await startMockHttpServer();
    await using other = await startMockHttpServer();
    await using dir = await tasks(["a", "b"]);
    await writeFile(
      dir.path("c.yaml"),
      `prompt: Go.\nworkspace: ws\nmodel: m\nprovider:\n  name: deepseek\n  api: anthropic\n  base_url: ${other.url}\n`,
    );
    refusing.queue(
      httpError(403, { type: "error", error: { type: "permission_error", message: "no" } }),
    );
    other.queue(reply().text("c is fine"));

    const run = await runCli(
      [
        "-j",
        "1",
        ...["a", "b", "c"].map((name) => dir.path(`${name}.yaml`)),
        "--out",
        dir.path("out"),
      ],
      { env: { ...env(refusing.url), DEEPSEEK_API_KEY: "ds-test-123456" } },
    );

    expect(run.exitCode).toBe(2);
    expect([refusing.requests.length, other.requests.length]).toEqual([1, 1]);
    expect(await readSummary(dir.path("out/b"))).toMatchObject({ status: "skipped" });
    expect(await readSummary(dir.path("out/c"))).toMatchObject({ status: "completed" });
    expect(run.stderr.split("\n").at(-1)).toBe(
      `agent-run: the API refused the key (403) in task "a", so 1 more task using it was not run; check ANTHROPIC_API_KEY (the anthropic key sent to ${refusing.url})`,
    );
  });
});
