import { describe, expect, test } from "vitest";
import type { ApiMessage } from "../../src/model/model-client.js";
import { DEFAULT_PRICES } from "../../src/model/pricing.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { callDelta, chunk, usageChunk } from "../helpers/openai-chunks.js";
import { startOpenAIHttpServer } from "../helpers/openai-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { type RawStream, type ReplyBuilder, reply, toScripted, toSse } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Replies costing 100k input + 10k output tokens each: $0.30 per reply at claude-sonnet-5-5's $2/$10. */
const COSTLY = `- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: text, text: done }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
`;

function batch(names: string[], extra = ""): Record<string, string> {
  const files: Record<string, string> = { "ws/a.txt": "a\n", "r.yaml": COSTLY };
  for (const name of names)
    files[`${name}.yaml`] = `prompt: Go.\nworkspace: ws\nreplies: r.yaml\n${extra}`;
  return files;
}

describe("batch budgets and max_cost", () => {
  test("--budget-usd: once spent, running tasks stop at their next call and the rest are skipped", async () => {
    await using dir = await tmpWorkspace({ files: batch(["t1", "t2", "t3"]) });
    const run = await runCli([
      "--offline",
      "-j",
      "1",
      "--budget-usd",
      "1",
      dir.path("t1.yaml"),
      dir.path("t2.yaml"),
      dir.path("t3.yaml"),
      "--out",
      dir.path("out"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("out/t1"))).toMatchObject({
      status: "completed",
      steps: 3,
      cost_usd: 0.9,
    });
    expect(await readSummary(dir.path("out/t2"))).toMatchObject({
      status: "budget",
      steps: 1,
      cost_usd: 0.3,
      error: "the batch budget is spent ($1.20 of $1.00); raise --budget-usd",
    });
    expect(run.stderr).toContain("[t2] step 1 budget reached ($1.20 of $1.00)");
    const skipped = await readSummary(dir.path("out/t3"));
    expect(skipped).toMatchObject({ status: "skipped", steps: 0, passed: false });
    expect(skipped.error).toBe("the batch budget is spent ($1.20 of $1.00); raise --budget-usd");
    expect((await readTranscript(dir.path("out/t3"))).map((line) => line.type)).toEqual([
      "system",
      "result",
    ]);
    expect((await readTranscript(dir.path("out/t2"))).at(-2)).toMatchObject({
      type: "limit_reached",
      limit: "budget",
      max: 1,
    });
    expect(run.stdout).toMatch(/^\| t3 +\| skipped +\| no +\|/m);
  });

  test("--budget-tokens caps the batch in tokens", async () => {
    await using dir = await tmpWorkspace({ files: batch(["t1", "t2"]) });
    const run = await runCli([
      "--offline",
      "-j",
      "1",
      "--budget-tokens",
      "200000",
      dir.path("t1.yaml"),
      dir.path("t2.yaml"),
      "--out",
      dir.path("out"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("out/t1"))).toMatchObject({
      status: "budget",
      steps: 2,
      total_tokens: 220000,
      error: "the batch budget is spent (220,000 of 200,000 tokens); raise --budget-tokens",
    });
    expect(await readSummary(dir.path("out/t2"))).toMatchObject({
      status: "skipped",
      error: "the batch budget is spent (220,000 of 200,000 tokens); raise --budget-tokens",
    });
  });

  test("max_cost_usd in the task file stops that task with status max_cost; --max-cost overrides it", async () => {
    await using dir = await tmpWorkspace({
      files: batch(["t"], "limits: { max_cost_usd: 0.5 }\n"),
    });
    const fromFile = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("a")]);
    const fromFlag = await runCli([
      "--offline",
      dir.path("t.yaml"),
      "--max-cost",
      "5",
      "--out",
      dir.path("b"),
    ]);

    expect(fromFile.exitCode).toBe(1);
    expect(await readSummary(dir.path("a/t"))).toMatchObject({
      status: "max_cost",
      steps: 2,
      cost_usd: 0.6,
      error: "max_cost reached ($0.60 of $0.50); raise limits.max_cost_usd or --max-cost",
    });
    expect(fromFile.stderr).toContain("[t] step 2 max_cost reached ($0.60 of $0.50)");
    expect((await readTranscript(dir.path("a/t"))).at(-1)).toMatchObject({
      subtype: "error_max_budget_usd",
      status: "max_cost",
    });
    expect(fromFlag.exitCode).toBe(0);
  });

  test("a USD limit on a model with no known price is refused before anything runs", async () => {
    await using dir = await tmpWorkspace({ files: batch(["t"]) });
    const run = await runCli([
      "--offline",
      "--model",
      "claude-unknown-9",
      "--budget-usd",
      "1",
      dir.path("t.yaml"),
      "--out",
      dir.path("out"),
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /no price is known for the model of t \(claude-unknown-9\).*--prices/,
    );
  });
});

describe("token counts a Messages-API server sends", () => {
  /** A reply streamed as the API would, its final output count swapped for `outputTokens`. */
  function withOutputTokens(builder: ReplyBuilder, outputTokens: number): RawStream {
    const body = toSse(toScripted(builder) as ApiMessage).replace(
      '"usage":{"output_tokens":777}',
      `"usage":{"output_tokens":${outputTokens}}`,
    );
    expect(body).toContain(`"output_tokens":${outputTokens}}`);
    return { kind: "raw_stream", body };
  }

  test("a negative count counts as 0: it lowers neither the cost for max_cost nor the tokens", async () => {
    await using server = await startMockHttpServer();
    // $0.20 of input and 1e9 output tokens taken back; then a $0.30 reply; then one more.
    server.queue(
      withOutputTokens(reply().toolUse("list_files", {}).usage(100000, 777), -1e9),
      reply().toolUse("list_files", {}).usage(100000, 10000),
      reply().text("done").usage(100000, 10000),
    );
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nmodel: claude-sonnet-5-5\nlimits: { max_cost_usd: 0.4 }\n",
      },
    });
    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url },
    });

    expect(run.exitCode, run.stderr).toBe(1);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "max_cost",
      steps: 2,
      cost_usd: 0.5,
      usage: { input_tokens: 200000, output_tokens: 10000 },
    });
  });
});

describe("a cost a server reports", () => {
  test("a Messages-API server's `wire` in message_delta is no reported cost: 2M tokens cost what the table says", async () => {
    await using server = await startMockHttpServer();
    const body = toSse(toScripted(reply().text("done").usage(1000000, 777)) as ApiMessage).replace(
      '"delta":{"stop_reason":"end_turn"',
      '"delta":{"wire":{"usage":{"cost":0}},"provider":"openrouter","stop_reason":"end_turn"',
    );
    expect(body).toContain('"wire"');
    server.queue({
      kind: "raw_stream",
      body: body.replace('"output_tokens":777}', '"output_tokens":1000000}'),
    });
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "t.yaml":
          "prompt: Go.\nworkspace: ws\nmodel: claude-sonnet-5-5\nlimits: { max_cost_usd: 1 }\n",
      },
    });
    const run = await runCli([dir.path("t.yaml"), "--out", dir.path("out")], {
      env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url },
    });

    // The final answer took the run past max_cost: it completed, the excess recorded at its cost.
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "completed",
      cost_usd: 12,
      limit_exceeded_by_final_reply: { limit: "max_cost", used: 12, max: 1 },
    });
  });

  test("an openai-compatible server's usage.cost is ignored: only OpenRouter's is read", async () => {
    await using server = await startOpenAIHttpServer();
    server.queue({
      chunks: [
        chunk({ role: "assistant", content: "done" }),
        chunk({}, "stop"),
        usageChunk({ prompt_tokens: 1000000, completion_tokens: 100000, cost: 0 }),
      ],
    });
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "prices.json": JSON.stringify({ "openai-compatible/m": { input: 2, output: 10 } }),
        "t.yaml": `prompt: Go.\nworkspace: ws\nmodel: m\nlimits: { max_cost_usd: 1 }\nprovider:\n  name: openai-compatible\n  base_url: ${server.baseURL}\n`,
      },
    });
    const run = await runCli(
      [dir.path("t.yaml"), "--prices", dir.path("prices.json"), "--out", dir.path("out")],
      {},
    );

    expect(run.exitCode, run.stderr).toBe(0);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      cost_usd: 3,
      limit_exceeded_by_final_reply: { limit: "max_cost", used: 3, max: 1 },
    });
  });

  test("OpenRouter BYOK: the reply costs OpenRouter's fee plus the upstream charge, in max_cost and the result line", async () => {
    await using server = await startOpenAIHttpServer();
    const listing = (id: string) => [
      chunk(callDelta({ index: 0, id, name: "list_files", args: "{}" })),
      chunk({}, "tool_calls"),
      // A bring-your-own-key request: OpenRouter's fee is 0, the provider billed $0.60.
      usageChunk({
        prompt_tokens: 1000,
        completion_tokens: 50,
        cost: 0,
        is_byok: true,
        cost_details: { upstream_inference_cost: 0.6 },
      }),
    ];
    server.queue(
      { chunks: listing("call_1") },
      { chunks: listing("call_2") },
      { chunks: listing("call_3") },
    );
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "prices.json": JSON.stringify({ "openrouter/x/model": { input: 0, output: 0 } }),
        "t.yaml": `prompt: Go.\nworkspace: ws\nmodel: x/model\nlimits: { max_cost_usd: 1 }\nprovider:\n  name: openrouter\n  base_url: ${server.baseURL}\n`,
      },
    });
    const run = await runCli(
      [dir.path("t.yaml"), "--prices", dir.path("prices.json"), "--out", dir.path("out")],
      { env: { OPENROUTER_API_KEY: "sk-or-test" } },
    );

    expect(run.exitCode, run.stderr).toBe(1);
    expect(await readSummary(dir.path("out/t"))).toMatchObject({
      status: "max_cost",
      steps: 2,
      cost_usd: 1.2,
    });
    expect((await readTranscript(dir.path("out/t"))).at(-1)).toMatchObject({ total_cost_usd: 1.2 });
  });
});

test("a run's cost is its replies' unrounded costs summed, rounded once: usage × price", async () => {
  await using dir = await tmpWorkspace({});
  const run = await runCli([
    "--offline",
    "tasks/deepseek-add-divide.yaml",
    "--out",
    dir.path("out"),
  ]);

  expect(run.exitCode, run.stderr).toBe(0);
  const summary = await readSummary(dir.path("out/deepseek-add-divide"));
  const usage = summary.usage as Record<string, number>;
  const price = DEFAULT_PRICES["deepseek/deepseek-v4-flash"];
  const micros =
    (usage.input_tokens ?? 0) * (price?.input ?? 0) +
    (usage.output_tokens ?? 0) * (price?.output ?? 0) +
    (usage.cache_read_input_tokens ?? 0) * (price?.cacheRead ?? 0);
  expect(summary.cost_usd).toBe(Math.round(micros) / 1e6);
  expect(summary.cost_usd).toBe(0.000498);
  expect((await readTranscript(dir.path("out/deepseek-add-divide"))).at(-1)).toMatchObject({
    total_cost_usd: 0.000498,
  });
});
