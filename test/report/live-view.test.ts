import { describe, expect, test } from "vitest";
import { buildReport } from "../../src/report/aggregate.js";
import { createLiveReporter, createLiveView } from "../../src/report/live-view.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("the live view (terminals only)", () => {
  test("keeps one status line per running task under the log, redrawn in place", () => {
    const out: string[] = [];
    let clock = 1_000;
    const live = createLiveView({ write: (text) => out.push(text), columns: 80, now: () => clock });
    live.start("alpha");
    live.start("beta");
    clock += 2_500;
    live.update("alpha", 3, 12_345);
    live.print("[alpha] step 3 bash: npm test (exit 0, 1.2s)");
    live.end("alpha");
    live.close();

    const screen = out.join("");
    expect(screen).toContain(
      "  ▸ alpha  step 3  12,345 tokens  2.5s\n  ▸ beta  step 0  0 tokens  2.5s\n",
    );
    expect(screen).toContain("\u001b[2F\u001b[J[alpha] step 3 bash: npm test (exit 0, 1.2s)\n");
    expect(screen.endsWith("\u001b[1F\u001b[J")).toBe(true);
  });

  test("shows the tool call a task is running, from its start until its result", () => {
    const out: string[] = [];
    const reporter = createLiveReporter({
      writeRaw: (text) => out.push(text),
      columns: 100,
      isVerbose: false,
    });
    reporter.onTaskStart("alpha", "offline");
    const input = { command: "npm test" };
    reporter.onEvent("alpha", {
      type: "tool_start",
      step: 1,
      toolName: "bash",
      toolUseId: "t1",
      input,
    });
    const running = out.join("");
    const block = { type: "tool_result" as const, tool_use_id: "t1", content: "ok" };
    reporter.onEvent("alpha", {
      type: "tool_result",
      step: 1,
      toolName: "bash",
      input,
      block,
      durationMs: 1200,
      exitCode: 0,
    });
    const afterResult = out.slice(
      out.lastIndexOf("[alpha] step 1 bash: npm test (exit 0, 1.2s)\n"),
    );
    void reporter.onBatchEnd([], buildReport([]), "out");

    expect(running).toMatch(/▸ alpha {2}step 0 {2}0 tokens {2}\S+ {2}bash: npm test\n$/);
    expect(afterResult.join("")).not.toContain("bash: npm test\n  ▸");
    expect(afterResult.join("")).toMatch(/▸ alpha {2}step 0 {2}0 tokens {2}\S+\n/);
  });

  test("status lines are cut to the terminal width so redraws stay aligned", () => {
    const out: string[] = [];
    const live = createLiveView({ write: (text) => out.push(text), columns: 30, now: () => 0 });
    live.start("a-task-with-a-very-long-name-indeed");
    live.close();

    expect(out[0]?.trimEnd().length).toBeLessThanOrEqual(29);
  });

  test("a terminal that reports 0 columns gets 80, not lines cut to 20 characters", () => {
    const out: string[] = [];
    const live = createLiveView({ write: (text) => out.push(text), columns: 0, now: () => 0 });
    live.start("add-farewell");
    live.close();

    expect(out[0]).toMatch(/▸ add-farewell {2}step 0 {2}0 tokens/);
  });

  test("not on a terminal (or under CI), the log has no escape codes", async () => {
    await using out = await tmpWorkspace();
    const run = await runCli(["--offline", "tasks/fix-failing-test.yaml", "--out", out.root]);

    expect(run.exitCode).toBe(0);
    expect(run.stderr + run.stdout).not.toContain("\u001b[");
  });
});
