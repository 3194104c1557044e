import { describe, expect, test } from "vitest";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { buildReport } from "../../src/report/aggregate.js";
import { createBatchProgress } from "../../src/report/batch-progress.js";
import { createLiveReporter } from "../../src/report/live-view.js";
import type { TaskSummary } from "../../src/report/summary.js";

function summary(name: string, passed: boolean, costUsd: number | null): TaskSummary {
  return {
    name,
    taskFile: `${name}.yaml`,
    status: passed ? "completed" : "max_steps",
    error: undefined,
    model: "m",
    steps: 1,
    usage: ZERO_USAGE,
    costUsd,
    durationMs: 1,
    finalText: "",
    changedFiles: [],
    gitChanges: [],
    workspace: "ws",
    runDir: name,
    patchFile: null,
    checks: [],
    passed,
  };
}

describe("a batch's progress line", () => {
  test("estimates from the mean wall time of the finished tasks and the concurrency", () => {
    let clock = 0;
    const progress = createBatchProgress({ taskCount: 5, concurrency: 2, now: () => clock });
    const lines = [progress.line()];
    progress.taskStarted("a");
    progress.taskStarted("b");
    clock = 10_000;
    progress.taskEnded(summary("a", true, 0.25));
    lines.push(progress.line());
    progress.taskStarted("c");
    clock = 30_000;
    progress.taskEnded(summary("b", false, 0.17));
    lines.push(progress.line());

    expect(lines).toEqual([
      "[0/5] done, 0 failed, $0.0000 spent, estimating the time left",
      // 4 left at 10 s each, 2 at a time.
      "[1/5] done, 0 failed, $0.2500 spent, ~20s left",
      // 3 left at (10 + 30) / 2 = 20 s each, 2 at a time.
      "[2/5] done, 1 failed, $0.4200 spent, ~30s left",
    ]);
  });

  test("the last line has no estimate; unknown prices count as the final table counts them", () => {
    const progress = createBatchProgress({ taskCount: 2, concurrency: 4, now: () => 0 });
    progress.taskEnded(summary("a", true, null));
    const unknown = progress.line();
    progress.taskEnded(summary("b", true, 0.5));

    expect([unknown, progress.line()]).toEqual([
      "[1/2] done, 0 failed, cost unknown, ~1s left",
      "[2/2] done, 0 failed, $0.5000 spent",
    ]);
  });

  test("on a terminal it is the live block's last line, updated as tasks end", () => {
    const out: string[] = [];
    const progress = createBatchProgress({ taskCount: 2, concurrency: 1, now: () => 0 });
    const reporter = createLiveReporter({
      writeRaw: (text) => out.push(text),
      columns: 100,
      isVerbose: false,
      progress,
    });
    reporter.onTaskStart("alpha", "offline");
    const started = out.join("");
    reporter.onTaskEnd(summary("alpha", false, 0.01));
    const ended = out.join("").slice(started.length);
    void reporter.onBatchEnd([], buildReport([]), "out");

    expect(started).toMatch(
      /▸ alpha .*\n\[0\/2\] done, 0 failed, \$0\.0000 spent, estimating the time left\n$/,
    );
    expect(ended.endsWith("\u001b[J[1/2] done, 1 failed, $0.0100 spent, ~1s left\n")).toBe(true);
  });
});
