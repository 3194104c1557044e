import { writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Two recorded steps of 100k input + 10k output tokens each, then a final text. */
const REPLIES = `- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: text, text: done }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
`;

/**
 * Records a run offline on `recordedModel` (a task-file provider block may follow it), then forks
 * it after step 2 onto claude-haiku-4-5 on the mock server, with `forkExtra` in the fork's task.
 */
async function recordThenFork(recordedModel: string, forkExtra = "") {
  const server = await startMockHttpServer();
  // 10k input + 1k output tokens at Haiku's $1/$5: $0.015.
  server.queue(reply().text("Carried on.").usage(10000, 1000));
  const dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n", "r.yaml": REPLIES } });
  await writeFile(
    dir.path("t.yaml"),
    `prompt: Go.\nworkspace: ws\nreplies: r.yaml\nmodel: ${recordedModel}\n`,
  );
  const recorded = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")]);
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  await writeFile(
    dir.path("fork.yaml"),
    `prompt: Go on.\nworkspace: ws\nmodel: claude-haiku-4-5\nprovider:\n  name: anthropic\n  base_url: ${server.url}\n${forkExtra}`,
  );
  const fork = await runCli(
    [
      "replay",
      dir.path("out/t/transcript.jsonl"),
      "--until-step",
      "2",
      "--continue",
      "--task",
      dir.path("fork.yaml"),
      "--out",
      dir.path("forks"),
    ],
    { env: { ANTHROPIC_API_KEY: "test-key" } },
  );
  return { server, dir, fork };
}

const STEP_TOKENS = { cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };

describe("a fork onto another model prices each step as the model that made it", () => {
  test("the recorded steps at the recorded model's price, the new ones at the new model's; modelUsage has both", async () => {
    const { server, dir, fork } = await recordThenFork("claude-sonnet-5-5");
    await using _server = server;
    await using _dir = dir;

    expect(fork.exitCode, fork.stderr).toBe(0);
    // Two Sonnet steps at $0.30 each, one Haiku step at $0.015.
    expect(await readSummary(dir.path("forks/t"))).toMatchObject({ steps: 3, cost_usd: 0.615 });
    expect((await readTranscript(dir.path("forks/t"))).at(-1)).toMatchObject({
      total_cost_usd: 0.615,
      modelUsage: {
        "claude-sonnet-5-5": {
          inputTokens: 200000,
          outputTokens: 20000,
          ...STEP_TOKENS,
          costUSD: 0.6,
        },
        "claude-haiku-4-5": {
          inputTokens: 10000,
          outputTokens: 1000,
          ...STEP_TOKENS,
          costUSD: 0.015,
        },
      },
    });
  });

  test("recorded steps of an unpriced model make the run's cost unknown, not Haiku's", async () => {
    const { server, dir, fork } = await recordThenFork(
      "local-model\nprovider:\n  name: openai-compatible\n  base_url: http://127.0.0.1:9/v1",
    );
    await using _server = server;
    await using _dir = dir;

    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(await readSummary(dir.path("forks/t"))).toMatchObject({ steps: 3, cost_usd: null });
    const result = (await readTranscript(dir.path("forks/t"))).at(-1);
    expect(result).toMatchObject({
      // The known model's cost only; the model without a price is named.
      total_cost_usd: 0.015,
      unpriced_models: ["local-model"],
      modelUsage: {
        "local-model": { inputTokens: 200000, outputTokens: 20000, costUSD: 0 },
        "claude-haiku-4-5": { inputTokens: 10000, outputTokens: 1000, costUSD: 0.015 },
      },
    });
  });

  test("max_cost_usd on a fork whose recorded steps have no price is refused before anything runs", async () => {
    const { server, dir, fork } = await recordThenFork(
      "local-model\nprovider:\n  name: openai-compatible\n  base_url: http://127.0.0.1:9/v1",
      "limits: { max_cost_usd: 1 }\n",
    );
    await using _server = server;
    await using _dir = dir;

    expect(fork.exitCode).toBe(2);
    expect(fork.stderr).toMatch(
      /no price is known for recorded step 1 \(local-model on openai-compatible\), so max_cost_usd cannot be enforced; add its price with --prices FILE/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
