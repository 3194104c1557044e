import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { PROVIDER_PRESETS } from "../../src/model/providers.js";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { httpError, reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-live-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a task file in `dir` pointing at `workspace`. */
async function taskFile(workspace: string, extra = "", name = "task"): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `prompt: Fix it.\nworkspace: ${workspace}\n${extra}`);
  return file;
}

describe("agent-run against the (msw-mocked) Messages API", () => {
  test("a multi-step task: streamed replies, tool results sent back, prompt caching, transcript", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "one\ntwo\n" } });
    server.queue(
      reply()
        .text("Looking.")
        .toolUse("read_file", { path: "a.txt" })
        .toolUse("bash", { command: "echo hi; exit 3" })
        .usage(100, 20),
      reply()
        .toolUse("edit_file", { path: "a.txt", old_text: "two", new_text: "2" })
        .usage(150, 30, 0, 90),
      reply().text("Done: replaced two with 2.").usage(200, 10, 0, 140),
    );
    const run = await runCli([await taskFile(ws.root), "--out", join(dir, "out")], { env: KEY });

    expect(run.exitCode).toBe(0);
    expect(server.requests).toHaveLength(3);
    const second = server.requests[1] as {
      messages: Array<{ role: string; content: unknown }>;
      stream: boolean;
    };
    expect(second.stream).toBe(true);
    expect(second.messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: expect.any(String),
          content: expect.stringContaining("one"),
        },
        expect.objectContaining({
          type: "tool_result",
          is_error: true,
          content: expect.stringMatching(/hi[\s\S]*exit code: 3/),
          cache_control: { type: "ephemeral" },
        }),
      ],
    });
    const first = server.requests[0] as {
      system: unknown;
      tools: Array<Record<string, unknown>>;
      model: string;
    };
    expect(first.model).toBe("claude-sonnet-5-5");
    expect(first.tools.map((tool) => tool.name)).toEqual([
      "bash",
      "read_file",
      "write_file",
      "edit_file",
      "list_files",
    ]);
    expect(first.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });

    const runDir = join(dir, "out", "task");
    expect(await readFile(join(runDir, "workspace", "a.txt"), "utf8")).toBe("one\n2\n");
    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("one\ntwo\n");
    const summary = await readSummary(runDir);
    expect(summary).toMatchObject({
      status: "completed",
      steps: 3,
      usage: {
        input_tokens: 450,
        output_tokens: 60,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 230,
      },
      total_tokens: 740,
      final_text: "Done: replaced two with 2.",
      changed_files: [
        { path: "a.txt", status: "modified", additions: 1, deletions: 1, binary: false },
      ],
    });
    expect(summary.cost_usd).toBeCloseTo((450 * 2 + 60 * 10 + 230 * 0.2) / 1e6, 8);
    const lines = await readTranscript(runDir);
    expect(lines.filter((line) => line.type === "assistant").map((line) => line.step)).toEqual([
      1, 2, 3,
    ]);
    expect(lines.find((line) => line.tool_name === "bash")).toMatchObject({
      exit_code: 3,
      step: 1,
    });
  });

  test("max_steps stops after exactly that many calls: status max_steps, exit 1", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    for (let i = 0; i < 5; i += 1) server.queue(reply().toolUse("list_files", { path: "." }));
    const run = await runCli(
      [await taskFile(ws.root, "limits: { max_steps: 3 }\n"), "--out", join(dir, "out")],
      { env: KEY },
    );

    expect(run.exitCode).toBe(1);
    expect(server.requests).toHaveLength(3);
    const lines = await readTranscript(join(dir, "out", "task"));
    expect(lines.at(-2)).toMatchObject({
      type: "limit_reached",
      limit: "max_steps",
      used: 3,
      max: 3,
    });
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      status: "max_steps",
      num_turns: 3,
    });
  });

  test("--max-tokens overrides the task and stops at the call that crosses it", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    server.queue(
      reply().toolUse("list_files", {}).usage(300, 100),
      reply().toolUse("list_files", {}).usage(400, 100),
      reply().toolUse("list_files", {}).usage(400, 100),
    );
    const run = await runCli(
      [
        await taskFile(ws.root, "limits: { max_tokens: 100000 }\n"),
        "--max-tokens",
        "700",
        "--out",
        join(dir, "out"),
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(await readSummary(join(dir, "out", "task"))).toMatchObject({
      status: "max_tokens",
      steps: 2,
      total_tokens: 900,
    });
    expect(run.stderr).toMatch(/max_tokens reached \(900 of 700 tokens\)/);
  });

  test("the task timeout kills a running sleep: status timeout, exit 1", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    server.queue(reply().toolUse("bash", { command: "sleep 30" }), reply().text("never"));
    const started = Date.now();
    const run = await runCli(
      [
        await taskFile(ws.root, "limits: { timeout: 1s }\nbash: { timeout: 60s }\n"),
        "--out",
        join(dir, "out"),
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(server.requests).toHaveLength(1);
    const lines = await readTranscript(join(dir, "out", "task"));
    expect(lines.at(-2)).toMatchObject({ type: "limit_reached", limit: "timeout", max: 1000 });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "timeout", is_error: true });
    expect(lines.find((line) => line.type === "user")).toMatchObject({ tool_name: "bash" });
    const { error } = await readSummary(join(dir, "out", "task"));
    expect(error).toMatch(
      /^timeout reached \(\d+\.\d s of 1\.0 s\); raise limits\.timeout or --timeout$/,
    );
  });

  test("an API error that is not retried ends the task with status error and the reason", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    server.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }),
    );
    const run = await runCli([await taskFile(ws.root), "--out", join(dir, "out")], { env: KEY });

    // A refused key is a configuration error (exit 2); the task itself still ends with error.
    expect(run.exitCode).toBe(2);
    const summary = await readSummary(join(dir, "out", "task"));
    expect(summary.status).toBe("error");
    expect(String(summary.error)).toMatch(/401.*invalid x-api-key.*ANTHROPIC_API_KEY/);
    const lines = await readTranscript(join(dir, "out", "task"));
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      errors: [expect.stringMatching(/401/)],
    });
  });

  test("the API key never reaches bash commands", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    server.queue(reply().toolUse("bash", { command: "env" }), reply().text("ok"));
    await runCli(
      [
        await taskFile(ws.root, "bash: { env: { EXTRA_VAR: visible } }\n"),
        "--out",
        join(dir, "out"),
      ],
      {
        env: { ...KEY, GITHUB_TOKEN: "ghp_secret_value" },
      },
    );

    const sent = JSON.stringify(server.requests[1]);
    expect(sent).toContain("EXTRA_VAR=visible");
    expect(sent).not.toContain(KEY.ANTHROPIC_API_KEY);
    expect(sent).not.toContain("ghp_secret_value");
  });

  test("no API key and no --offline: exit 2 before anything runs", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });
    const file = await taskFile(ws.root);
    const run = await runCli([file, "--out", join(dir, "out")], { env: {} });

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `agent-run: ${file}:1:1: ANTHROPIC_API_KEY is not set; export it (or ANTHROPIC_AUTH_TOKEN, for a gateway that takes a Bearer token) to run task "task" against ${PROVIDER_PRESETS.anthropic.baseURL}, or add --offline`,
    );
    expect(existsSync(join(dir, "out"))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});
