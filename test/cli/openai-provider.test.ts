import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { callDelta, chunk, usageChunk } from "../helpers/openai-chunks.js";
import { startOpenAIHttpServer } from "../helpers/openai-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// The built CLI on an OpenAI-compatible server on 127.0.0.1 that streams tool calls with the
// servers' quirks: an index with no id (vLLM, Ollama), every call on index 0 (some proxies), `stop` with calls
// (Ollama), usage in a last chunk with cached tokens.

const usage = (prompt: number, cached: number, completion: number) =>
  usageChunk({
    prompt_tokens: prompt,
    completion_tokens: completion,
    prompt_tokens_details: { cached_tokens: cached },
  });

function quirkyTurns(): unknown[][] {
  const write = JSON.stringify({ path: "b.txt", content: "B\n" });
  return [
    // Step 1: two parallel calls both on index 0 (told apart by their ids), ending with `stop`.
    [
      chunk({ role: "assistant", content: "Looking." }),
      chunk(callDelta({ index: 0, id: "call_1", name: "read_file", args: '{"path":' })),
      chunk(callDelta({ index: 0, args: '"a.txt"}' })),
      chunk(callDelta({ index: 0, id: "call_2", name: "write_file", args: write })),
      chunk({}, "stop"),
      usage(1000, 0, 50),
    ],
    // Step 2: a call with an index and no id, then `tool_calls`.
    [
      chunk(callDelta({ index: 1, name: "bash", args: '{"command":"cat b.txt"}' })),
      chunk({}, "tool_calls"),
      usage(1200, 1000, 30),
    ],
    [chunk({ content: "Done: wrote b.txt." }), chunk({}, "stop"), usage(1300, 1200, 10)],
  ];
}

describe("an OpenAI-compatible provider through the built CLI", () => {
  test("a multi-step task with streaming quirks completes, with usage, changed files and an offline replay", async () => {
    await using server = await startOpenAIHttpServer();
    for (const turn of quirkyTurns()) server.queue({ chunks: turn });
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "A\n" } });
    await writeFile(
      dir.path("t.yaml"),
      `prompt: Copy a.txt.\nworkspace: ws\nmodel: local-model\nprovider:\n  name: openai-compatible\n  base_url: ${server.baseURL}\n`,
    );
    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {});

    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    // Each call got its result, as role "tool" messages right after their assistant turn.
    const second = server.requests[1]?.messages as Array<{ role: string; tool_call_id?: string }>;
    expect(second.filter((message) => message.role === "tool")).toHaveLength(2);
    const summary = await readSummary(dir.path("out/t"));
    expect(summary).toMatchObject({ status: "completed", steps: 3 });
    expect(summary.changed_files).toEqual([
      { path: "b.txt", status: "added", additions: 1, deletions: 0, binary: false },
    ]);
    // Input is prompt minus cached; cache reads are the cached count.
    expect(summary.usage).toMatchObject({
      input_tokens: 1000 + 200 + 100,
      cache_read_input_tokens: 2200,
      output_tokens: 90,
    });
    const lines = await readTranscript(dir.path("out/t"));
    expect(lines[0]).toMatchObject({ task: { provider: { name: "openai-compatible" } } });

    const replay = await spawnCli(
      ["replay", dir.path("out/t/transcript.jsonl"), "-o", dir.path("replayed"), "--strict"],
      {},
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(await readFile(join(dir.path("replayed"), "t", "workspace", "b.txt"), "utf8")).toBe(
      "B\n",
    );
  });

  test("OpenRouter's reported cost is the reply's cost: in max_cost, the result line, summary.json and a replay", async () => {
    await using server = await startOpenAIHttpServer();
    const listing = (id: string) => [
      chunk(callDelta({ index: 0, id, name: "list_files", args: "{}" })),
      chunk({}, "tool_calls"),
      // OpenRouter's last chunk: the usage with what the call cost, in USD.
      usageChunk({ prompt_tokens: 1000, completion_tokens: 50, cost: 0.02 }),
    ];
    server.queue({ chunks: listing("call_1") }, { chunks: listing("call_2") });
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "A\n" } });
    // The table's estimate for this model would be $1.05 a call: stopped at the first reply.
    await writeFile(
      dir.path("prices.json"),
      JSON.stringify({ "openrouter/deepseek/deepseek-v4-flash": { input: 1000, output: 1000 } }),
    );
    await writeFile(
      dir.path("t.yaml"),
      `prompt: List.\nworkspace: ws\nmodel: deepseek/deepseek-v4-flash\nlimits: { max_cost_usd: 0.03 }\nprovider:\n  name: openrouter\n  base_url: ${server.baseURL}\n`,
    );
    const run = await spawnCli(
      [dir.path("t.yaml"), "--prices", dir.path("prices.json"), "--out", dir.path("out")],
      { OPENROUTER_API_KEY: "sk-or-test" },
    );

    expect(run.code, run.stderr).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "max_cost",
      steps: 2,
      cost_usd: 0.04,
    });
    expect((await readTranscript(dir.path("out/t"))).at(-1)).toMatchObject({
      type: "result",
      total_cost_usd: 0.04,
    });

    // No prices file: the figures come from the recorded replies.
    const replay = await spawnCli(
      ["replay", dir.path("out/t/transcript.jsonl"), "-o", dir.path("replayed")],
      {},
    );
    expect(replay.stderr).toContain("replay: no divergence");
    expect(await readSummary(dir.path("replayed/t"))).toMatchObject({
      status: "max_cost",
      steps: 2,
      cost_usd: 0.04,
    });
  });

  test("tool_protocol: text completes against a server with no tools support", async () => {
    await using server = await startOpenAIHttpServer();
    const say = (text: string) => [chunk({ role: "assistant", content: text }), chunk({}, "stop")];
    server.queue(
      { chunks: say('tool: write_file({"path":"c.txt","content":"C\\n"})') },
      { chunks: say("All done.") },
    );
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "A\n" } });
    await writeFile(
      dir.path("t.yaml"),
      `prompt: Write c.txt.\nworkspace: ws\nmodel: plain-model\ntool_protocol: text\nprovider:\n  name: openai-compatible\n  base_url: ${server.baseURL}\n`,
    );
    const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {});

    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]).not.toHaveProperty("tools");
    const second = JSON.stringify(server.requests[1]?.messages);
    expect(second).toContain("tool_result(");
    const summary = await readSummary(dir.path("out/t"));
    expect(summary).toMatchObject({ status: "completed" });
    expect((summary.changed_files as Array<{ path: string }>).map((file) => file.path)).toEqual([
      "c.txt",
    ]);
  });
});
