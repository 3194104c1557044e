import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** A tool call, then a final answer whose usage takes the run past the limits below. */
const REPLIES = `- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: text, text: All done. }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
`;

function taskWith(limits: string) {
  return tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "r.yaml": REPLIES,
      "t.yaml": `prompt: Go.\nworkspace: ws\nreplies: r.yaml\nlimits: ${limits}\n`,
    },
  });
}

describe("a final answer that crosses a limit after the model ended its turn", () => {
  test("max_tokens: the run completes; summary, result line, report.json and the table say the last reply exceeded it", async () => {
    await using dir = await taskWith("{ max_tokens: 200000 }");
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    expect(run.exitCode).toBe(0);
    const exceeded = { limit: "max_tokens", used: 220000, max: 200000 };
    expect(await readSummary(dir.path("runs/t"))).toMatchObject({
      status: "completed",
      passed: true,
      limit_exceeded_by_final_reply: exceeded,
    });
    const lines = await readTranscript(dir.path("runs/t"));
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      status: "completed",
      limit_exceeded_by_final_reply: exceeded,
    });
    expect(lines.some((line) => line.type === "limit_reached")).toBe(false);
    const report = JSON.parse(await readFile(dir.path("runs/report.json"), "utf8"));
    expect(report.tasks[0].runs[0]).toMatchObject({ limit_exceeded_by_final_reply: exceeded });
    expect(run.stdout).toContain(
      "Notes:\n- t: its final reply went past max_tokens (220,000 of 200,000 tokens); it completed, as no further call was made",
    );
    const again = await runCli(["report", dir.path("runs"), "--json", dir.path("again.json")]);
    expect(again.stdout).toContain("- t: its final reply went past max_tokens");
    expect(await readFile(dir.path("again.json"), "utf8")).toBe(
      await readFile(dir.path("runs/report.json"), "utf8"),
    );
  });

  test("max_cost: the run completes, recording the cost the last reply took it to", async () => {
    await using dir = await taskWith("{ max_cost_usd: 0.5 }");
    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    expect(run.exitCode).toBe(0);
    expect(await readSummary(dir.path("runs/t"))).toMatchObject({
      status: "completed",
      limit_exceeded_by_final_reply: { limit: "max_cost", max: 0.5 },
    });
    expect(run.stdout).toMatch(/- t: its final reply went past max_cost \(\$0\.\d+ of \$0\.50\)/);
  });
});
