import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// A model without a known price: every output says so the same way, and none shows its cost as
// a plain 0 without saying it is unpriced.

const USAGE = "  usage: { input_tokens: 1000, output_tokens: 100 }\n";

describe("a batch with a task whose model has no known price", () => {
  test("the result line, report.json and the GitHub step outputs agree", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `- content: [{ type: text, text: done }]\n${USAGE}`,
        "priced.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
        "unpriced.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nmodel: mystery-model-1\n",
        "output.txt": "",
        "summary.md": "",
      },
    });

    const run = await runCli(
      ["--offline", dir.path("priced.yaml"), dir.path("unpriced.yaml"), "--out", dir.path("out")],
      {
        env: {
          GITHUB_ACTIONS: "true",
          CI: "true",
          GITHUB_OUTPUT: dir.path("output.txt"),
          GITHUB_STEP_SUMMARY: dir.path("summary.md"),
        },
      },
    );

    expect(run.exitCode, run.stderr).toBe(0);
    const known = (1000 * 2 + 100 * 10) / 1e6;
    expect((await readTranscript(dir.path("out/unpriced"))).at(-1)).toMatchObject({
      total_cost_usd: 0,
      unpriced_models: ["mystery-model-1"],
      modelUsage: { "mystery-model-1": { costUSD: 0 } },
    });
    expect((await readTranscript(dir.path("out/priced"))).at(-1)).toMatchObject({
      total_cost_usd: known,
      unpriced_models: [],
    });
    const report = JSON.parse(await readFile(dir.path("out/report.json"), "utf8")) as {
      totals: { cost_usd: number; unpriced_trials: number };
    };
    expect(report.totals).toMatchObject({ cost_usd: known, unpriced_trials: 1 });
    const outputs = await readFile(dir.path("output.txt"), "utf8");
    expect(outputs).toContain(`cost_usd=${known}\n`);
    expect(outputs).toContain("unpriced_tasks=1\n");
  });
});
