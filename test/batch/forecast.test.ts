import { describe, expect, test } from "vitest";
import { forecastBatch, type PlannedTask } from "../../src/batch/forecast.js";
import { worstCase } from "../../src/batch/worst-case.js";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { type ReportRun, type ReportTask, reportTask } from "../../src/report/aggregate.js";

const LIMITS = {
  maxSteps: 10,
  maxTokens: 100_000,
  maxOutputTokens: 1_000,
  maxContextTokens: 10_000,
  maxCostUsd: undefined,
};
const PRICE = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };

function planned(name: string, overrides: Partial<PlannedTask> = {}): PlannedTask {
  return { name, model: "m", limits: LIMITS, price: PRICE, runs: 1, maxAttempts: 1, ...overrides };
}

/** An earlier report's task, run once. */
function earlier(name: string, overrides: Partial<ReportRun> = {}): ReportTask {
  const run: ReportRun = {
    trial: 1,
    attempts: 1,
    errorKind: null,
    earlierAttempts: [],
    model: "m",
    status: "completed",
    passed: true,
    error: null,
    steps: 3,
    usage: ZERO_USAGE,
    totalTokens: 0,
    costUsd: 0.1,
    durationMs: 1_000,
    changedFileCount: 0,
    checkCount: 0,
    failedChecks: [],
    limitExceededByFinalReply: null,
    plan: undefined,
    ...overrides,
  };
  return reportTask(name, `tasks/${name}.yaml`, [run], null);
}

describe("forecastBatch", () => {
  test("each task's worst case times its runs, and the priced ones summed", () => {
    const one = worstCase(LIMITS, PRICE);
    const forecast = forecastBatch(
      [planned("a"), planned("b", { runs: 3 }), planned("c", { price: undefined })],
      [],
      4,
    );

    expect(forecast.tasks.map((task) => [task.name, task.worstUsd, task.worstTokens])).toEqual([
      ["a", one.usd, one.tokens],
      ["b", (one.usd ?? 0) * 3, one.tokens * 3],
      ["c", null, one.tokens],
    ]);
    expect(forecast.worstUsd).toBeCloseTo((one.usd ?? 0) * 4, 12);
    expect(forecast.worstTokens).toBe(one.tokens * 5);
    expect(forecast.unpricedTasks.map((task) => task.name)).toEqual(["c"]);
  });

  test("with --retry-errors, each run's worst case counts every attempt it may take", () => {
    const one = worstCase(LIMITS, PRICE);
    const forecast = forecastBatch([planned("a", { runs: 3, maxAttempts: 3 })], [], 1);

    expect([forecast.worstTokens, forecast.worstUsd]).toEqual([one.tokens * 9, (one.usd ?? 0) * 9]);
  });

  test("expected: the means of the task's earlier runs with its model that ended on their own", () => {
    const history = [
      earlier("a", { costUsd: 0.1, durationMs: 1_000 }),
      earlier("a", { status: "max_steps", costUsd: 0.3, durationMs: 3_000 }),
      earlier("a", { model: "other", costUsd: 9 }),
      ...["skipped", "not_run", "interrupted", "cancelled", "budget"].map((status) =>
        earlier("a", { status, costUsd: 9, durationMs: 9 }),
      ),
      earlier("b", { costUsd: null, durationMs: 500 }),
    ];

    const forecast = forecastBatch(
      [planned("a", { runs: 2 }), planned("b"), planned("c")],
      history,
      4,
    );

    expect(forecast.tasks.map((task) => task.expected)).toEqual([
      { runCount: 2, costUsd: 0.2, durationMs: 2_000 },
      { runCount: 1, costUsd: null, durationMs: 500 },
      undefined,
    ]);
    expect(forecast.expected).toEqual({
      taskCount: 2,
      costUsd: 0.4,
      durationMs: 4_500,
      wallTimeMs: 2_000,
    });
  });

  test("a hostile report's absurd figures are left out instead of making the sums infinite", () => {
    const history = [
      earlier("a", { costUsd: 1e308 }),
      earlier("a", { durationMs: 1e308 }),
      earlier("a", { costUsd: 0.5, durationMs: 10 }),
    ];

    const forecast = forecastBatch([planned("a", { runs: 1_000 })], history, 1);

    expect(forecast.tasks[0]?.expected).toEqual({ runCount: 1, costUsd: 0.5, durationMs: 10 });
    expect(forecast.expected.costUsd).toBe(500);
  });

  test("the wall time: the runs start in order, --concurrency at a time, each on the first free slot", () => {
    const history = [
      earlier("a", { durationMs: 5_000 }),
      earlier("b", { durationMs: 1_000 }),
      earlier("c", { durationMs: 1_000 }),
      earlier("d", { durationMs: 2_000 }),
    ];
    const tasks = ["a", "b", "c", "d"].map((name) => planned(name));

    expect(forecastBatch(tasks, history, 1).expected.wallTimeMs).toBe(9_000);
    expect(forecastBatch(tasks, history, 2).expected.wallTimeMs).toBe(5_000);
    expect(forecastBatch(tasks, history, 1_000_000_000).expected.wallTimeMs).toBe(5_000);
  });
});
