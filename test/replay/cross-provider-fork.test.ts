import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { chunk } from "../helpers/openai-chunks.js";
import { startOpenAIHttpServer } from "../helpers/openai-http-server.js";
import { readSummary } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

type Sent = { role: string; content: unknown };

/** Records an example task offline, then forks it after `untilStep` with `forkTask`. */
async function recordThenFork(
  example: string,
  forkTask: (workspace: string) => string,
  env: Record<string, string>,
) {
  const dir = await tmpWorkspace({});
  const recorded = await runCli(["--offline", `tasks/${example}.yaml`, "--out", dir.path("out")]);
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  const workspace = example === "deepseek-add-divide" ? "calculator" : "greeter";
  await writeFile(dir.path("fork.yaml"), forkTask(resolve(`fixtures/workspaces/${workspace}`)));
  const fork = await runCli(
    [
      "replay",
      dir.path(`out/${example}/transcript.jsonl`),
      "--until-step",
      "2",
      "--continue",
      "--task",
      dir.path("fork.yaml"),
      "--out",
      dir.path("forks"),
    ],
    { env },
  );
  return { dir, fork };
}

describe("a fork continues a recorded run on another provider", () => {
  test("DeepSeek (chat completions, reasoning blocks) onto the Messages API", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Carried on from DeepSeek's two steps."));
    const { dir, fork } = await recordThenFork(
      "deepseek-add-divide",
      (workspace) =>
        `prompt: Add divide.\nworkspace: ${workspace}\nmodel: claude-sonnet-5-5\nprovider:\n  name: anthropic\n  base_url: ${server.url}\n`,
      { ANTHROPIC_API_KEY: "test-key" },
    );
    await using _dir = dir;

    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]?.messages as Sent[];
    const blocks = messages.flatMap((message) =>
      Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : [],
    );
    // Another provider's reasoning is the transcript's, never the Messages API's.
    expect(blocks.some((block) => block.type === "reasoning")).toBe(false);
    const calls = blocks.filter((block) => block.type === "tool_use");
    const results = blocks.filter((block) => block.type === "tool_result");
    expect(calls).toHaveLength(4);
    expect(results.map((block) => block.tool_use_id)).toEqual(calls.map((block) => block.id));
    for (const call of calls) expect(call.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(await readSummary(dir.path("forks/deepseek-add-divide"))).toMatchObject({
      status: "completed",
      steps: 3,
      origin: { kind: "fork", steps: 2 },
    });
  });

  test("Claude with signed thinking onto an OpenAI-compatible server", async () => {
    await using server = await startOpenAIHttpServer();
    server.queue({ chunks: [chunk({ role: "assistant", content: "Done." }), chunk({}, "stop")] });
    const { dir, fork } = await recordThenFork(
      "think-add-shout",
      (workspace) =>
        `prompt: Add --shout.\nworkspace: ${workspace}\nmodel: gpt-test\nprovider:\n  name: openai-compatible\n  base_url: ${server.baseURL}\n`,
      {},
    );
    await using _dir = dir;

    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]?.messages as Array<Record<string, unknown>>;
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
    ]);
    // Claude's thinking and its signatures stay behind: they mean nothing to another model.
    const sent = JSON.stringify(messages);
    expect(sent).not.toContain("ErUB");
    expect(sent).not.toContain("The CLI takes the name");
    expect(await readSummary(dir.path("forks/think-add-shout"))).toMatchObject({
      status: "completed",
      steps: 3,
      origin: { kind: "fork", steps: 2 },
    });
  });
});

describe("a fork of a run with signed thinking", () => {
  type Sent = { role: string; content: Array<{ type: string }> };
  const turnsOf = (body: Record<string, unknown> | undefined) =>
    ((body?.messages ?? []) as Sent[])
      .filter((message) => message.role === "assistant")
      .map((message) => message.content.map((block) => block.type));

  test("recorded live, onto another Claude model: the thinking goes back, and the API may drop what it cannot bind", async () => {
    await using server = await startMockHttpServer();
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "A\n",
        "t.yaml": "prompt: Write two files.\nworkspace: ws\nreasoning: { effort: high }\n",
      },
    });
    const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url };
    server.queue(
      reply()
        .thinking("first b", "sig_live_1")
        .toolUse("write_file", { path: "b.txt", content: "B\n" }),
      reply()
        .thinking("then c", "sig_live_2")
        .toolUse("write_file", { path: "c.txt", content: "C\n" }),
      reply().thinking("done", "sig_live_3").text("Both written."),
    );
    const recorded = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], { env });
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    server.queue(reply().thinking("on Opus", "sig_opus").text("Carried on."));

    const fork = await runCli(
      [
        "replay",
        dir.path("out/t/transcript.jsonl"),
        "--until-step",
        "2",
        "--continue",
        "--model",
        "claude-opus-5",
        "--out",
        dir.path("forks"),
      ],
      { env },
    );

    expect(fork.exitCode, fork.stderr).toBe(0);
    const request = server.requests.at(-1);
    expect(turnsOf(request)).toEqual([
      ["thinking", "tool_use"],
      ["thinking", "tool_use"],
    ]);
    expect(request?.thinking).toMatchObject({
      type: "adaptive",
      block_binding: { prefix_mismatch_behavior: "drop_block" },
    });
    expect(server.headers.at(-1)?.["anthropic-beta"]).toBe("thinking-binding-controls-2026-08-01");
  });

  test("recorded offline: the replies file's made-up signatures stay behind, in a fork and in a fork of it", async () => {
    await using server = await startMockHttpServer();
    server.queue(reply().text("Carried on."));
    await using dir = await tmpWorkspace({});
    const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url };
    const recorded = await runCli(
      ["--offline", "tasks/think-add-shout.yaml", "--out", dir.path("out")],
      { env },
    );
    expect(recorded.exitCode, recorded.stderr).toBe(0);

    const fork = await runCli(
      [
        "replay",
        dir.path("out/think-add-shout/transcript.jsonl"),
        "--until-step",
        "2",
        "--continue",
        "--out",
        dir.path("forks"),
      ],
      { env },
    );

    expect(fork.exitCode, fork.stderr).toBe(0);
    const request = server.requests[0];
    expect(turnsOf(request)).toEqual([["tool_use"], ["tool_use", "tool_use"]]);
    // Adaptive thinking may skip a turn, so the fork goes on thinking.
    expect(request).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
    });

    // A fork of that fork: its first two steps are still the replies file's, whatever its init
    // line says about its provider.
    server.queue(reply().text("Carried on again."));
    const again = await runCli(
      [
        "replay",
        dir.path("forks/think-add-shout/transcript.jsonl"),
        "--until-step",
        "2",
        "--continue",
        "--out",
        dir.path("forks2"),
      ],
      { env },
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect(turnsOf(server.requests.at(-1))).toEqual([["tool_use"], ["tool_use", "tool_use"]]);
  });
});
