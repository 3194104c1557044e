import { describe, expect, test } from "vitest";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { type Report, type ReportRun, reportTask, withTotals } from "../../src/report/aggregate.js";
import { compareReports } from "../../src/report/compare.js";
import { formatComparisonMarkdown } from "../../src/report/compare-markdown.js";
import type { TaskFingerprint } from "../../src/report/fingerprint.js";
import { fingerprintDifferences } from "../../src/report/fingerprint-diff.js";

const FINGERPRINT: TaskFingerprint = {
  model: "claude-sonnet-5-5",
  task_sha256: "a".repeat(64),
  limits: {
    max_steps: 10,
    max_tokens: 200_000,
    max_output_tokens: 8_192,
    max_context_tokens: 150_000,
    timeout_ms: 300_000,
    max_cost_usd: null,
    max_repeated_calls: 5,
    subagent_max_steps: 30,
    subagent_max_depth: 1,
  },
  price: { input: 2, output: 10, cache_write: 2.5, cache_read: 0.2 },
  tool_protocol: "native",
  agent_run_version: "0.1.0",
  mixed: [],
};

function run(trial: number, passed: boolean): ReportRun {
  return {
    trial,
    attempts: 1,
    model: FINGERPRINT.model,
    status: passed ? "completed" : "max_steps",
    passed,
    error: passed ? null : "max_steps reached",
    errorKind: null,
    steps: 4,
    usage: ZERO_USAGE,
    totalTokens: 1_000,
    costUsd: 0.01,
    durationMs: 100,
    changedFileCount: 1,
    checkCount: 1,
    failedChecks: [],
    limitExceededByFinalReply: null,
    plan: undefined,
    earlierAttempts: [],
  };
}

/** A report of tasks, each given as its trials' outcomes ("PPF": passed, passed, failed). */
function report(
  tasks: Record<string, string>,
  fingerprint: (name: string) => TaskFingerprint | null = () => FINGERPRINT,
): Report {
  return withTotals(
    Object.entries(tasks).map(([name, outcomes]) =>
      reportTask(
        name,
        `tasks/${name}.yaml`,
        [...outcomes].map((outcome, index) => run(index + 1, outcome === "P")),
        fingerprint(name),
      ),
    ),
  );
}

/** Twelve tasks that passed every trial, and `changes` replacing some. */
function twelve(trials: string, changes: Record<string, string> = {}): Record<string, string> {
  const tasks = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [`t${String(i + 1).padStart(2, "0")}`, trials]),
  );
  return { ...tasks, ...changes };
}

describe("compareReports: verdicts per task", () => {
  test("a drop is regressed only when significant; flaky tasks are flaky, flips on few trials are flips", () => {
    const base = report({ a: "PPPPP", b: "PPP", c: "PPF", d: "P", e: "FFFFF", f: "PPP" });
    const next = report({ a: "FFFFF", b: "FFF", c: "PFF", d: "F", e: "PPPPP", f: "PPP" });

    const comparison = compareReports(base, next, ["a", "b"]);

    expect(comparison.tasks.map((task) => [task.name, task.verdict])).toEqual([
      ["a", "regressed"], // 5/5 → 0/5: p = 1/252
      ["b", "pass_to_fail"], // 3/3 → 0/3: p = 1/20, not below 0.05
      ["c", "flaky"],
      ["d", "pass_to_fail"], // one trial each: p = 0.5
      ["e", "improved"],
      ["f", "unchanged"],
    ]);
    expect(comparison.tasks[0]?.pDrop).toBeCloseTo(1 / 252, 12);
    expect(comparison.tasks[1]?.pDrop).toBeCloseTo(0.05, 12);
    // Named for the gate, a's drop fails it; b's flip on three trials does not.
    expect(comparison.regression).toEqual({
      isRegression: true,
      reasons: ["a regressed (p = 0.004)"],
      regressedTasks: ["a"],
    });
    // Not named, it is listed and does not: over many tasks, a flaky one can be a fluke.
    expect(compareReports(base, next).regression).toEqual({
      isRegression: false,
      reasons: [],
      regressedTasks: ["a"],
    });
  });

  test("noise (one flaky trial either way in 12 tasks) is no regression; a drop in 4 of 12 tasks is", () => {
    const base = report(twelve("PPP", { t01: "PFP" }));
    const noise = report(twelve("PPP", { t02: "PPF" }));
    const drop = report(twelve("PPP", { t01: "FFF", t02: "FFF", t03: "FFF", t04: "FFF" }));

    const calm = compareReports(base, noise);
    const fallen = compareReports(base, drop);

    expect(calm.regression).toEqual({ isRegression: false, reasons: [], regressedTasks: [] });
    expect(calm.meanRate.interval.low).toBeLessThan(0);
    expect(calm.meanRate.interval.high).toBeGreaterThan(0);
    expect(fallen.meanRate.interval.high).toBeLessThan(0);
    expect(fallen.regression.reasons).toEqual([
      "the mean pass rate fell, and its 95% interval lies wholly below zero",
    ]);
    // No single task's drop is significant on three trials.
    expect(fallen.tasks.filter((task) => task.verdict === "regressed")).toEqual([]);
  });

  test("per-trial figures: trial counts may differ between the batches", () => {
    const comparison = compareReports(report({ a: "P" }), report({ a: "PPPP" }));

    expect(comparison.tasks[0]?.perTrial).toEqual({
      base: { steps: 4, totalTokens: 1_000, costUsd: 0.01 },
      next: { steps: 4, totalTokens: 1_000, costUsd: 0.01 },
    });
  });
});

describe("fingerprintDifferences", () => {
  const other = (changes: Partial<TaskFingerprint>) => () => ({ ...FINGERPRINT, ...changes });

  test("none for batches run alike", () => {
    expect(fingerprintDifferences(report({ a: "P" }), report({ a: "F" }))).toEqual([]);
  });

  test("refuses other tasks, other limits, a model repriced and an unknown fingerprint", () => {
    const base = report({ a: "P", b: "P", c: "P", gone: "P" });
    const limits = { ...FINGERPRINT.limits, max_steps: 2, max_cost_usd: 1 };
    const next = report({ a: "P", b: "P", c: "P", added: "P" }, (name) =>
      name === "c"
        ? null
        : {
            ...FINGERPRINT,
            limits,
            price: {
              ...(FINGERPRINT.price ?? { input: 0, output: 0, cache_write: 0, cache_read: 0 }),
              input: 3,
            },
          },
    );

    expect(fingerprintDifferences(base, next)).toEqual([
      { kind: "task_set", isRefused: true, change: "only in BASE", tasks: ["gone"] },
      { kind: "task_set", isRefused: true, change: "only in NEW", tasks: ["added"] },
      {
        kind: "unrecorded",
        isRefused: true,
        change: "no fingerprint recorded in NEW",
        tasks: ["c"],
      },
      {
        kind: "limits",
        isRefused: true,
        change: "max_steps 10 → 2, max_cost_usd none → 1",
        tasks: ["a", "b"],
      },
      { kind: "price", isRefused: true, change: "input $2/MTok → $3/MTok", tasks: ["a", "b"] },
    ]);
  });

  test("lists another model, task file, tool protocol and version without refusing them", () => {
    const next = report(
      { a: "P" },
      other({
        model: "claude-opus-5",
        price: { input: 5, output: 25, cache_write: 6.25, cache_read: 0.5 },
        task_sha256: "b".repeat(64),
        tool_protocol: "text",
        agent_run_version: "0.2.0",
      }),
    );

    const differences = fingerprintDifferences(report({ a: "P" }), next);

    // Another model has another price: the model's change says so, and it is no refusal.
    expect(differences.map((d) => [d.kind, d.isRefused, d.change])).toEqual([
      ["model", false, "claude-sonnet-5-5 → claude-opus-5"],
      ["task_sha256", false, "aaaaaaaaaaaa → bbbbbbbbbbbb"],
      ["tool_protocol", false, "native → text"],
      ["agent_run_version", false, "0.1.0 → 0.2.0"],
    ]);
  });

  test("trials of one task run under different limits (shards merged) are refused", () => {
    const next = report({ a: "PP" }, other({ mixed: ["limits", "agent_run_version"] }));

    expect(fingerprintDifferences(report({ a: "PP" }), next)).toEqual([
      {
        kind: "mixed",
        isRefused: true,
        change: "its trials in NEW ran with different limits",
        tasks: ["a"],
      },
      {
        kind: "mixed",
        isRefused: false,
        change: "its trials in NEW ran with different agent-run versions",
        tasks: ["a"],
      },
    ]);
  });
});

describe("formatComparisonMarkdown", () => {
  test("the differences, the mean's interval, the tasks by verdict, the table and the verdict", () => {
    const base = report({ a: "PPPPP", b: "PPP", c: "PPF" });
    const next = report({ a: "FFFFF", b: "PPP", c: "PFF" }, (name) =>
      name === "b" ? { ...FINGERPRINT, agent_run_version: "0.2.0" } : FINGERPRINT,
    );

    expect(formatComparisonMarkdown(compareReports(base, next, ["a"]))).toMatchInlineSnapshot(`
      "2/3 → 1/3 tasks passed every trial (11 → 11 trials)

      Differences between the batches (1):
      - agent-run version: 0.1.0 → 0.2.0; task b

      Mean pass rate 88.9% → 44.4%: -44.4 points, 95% interval [-100.0, 0.0] (paired two-level bootstrap over the 3 tasks in both)
      Tasks: 1 regressed, 0 improved, 1 flaky, 0 pass → fail, 0 fail → pass, 1 unchanged; 0 new, 0 missing

      Regressed (significant: Fisher's exact test, one-sided, p < 0.05) (1):
      - a: 5/5 → 0/5 passed (p = 0.004)

      Flaky (trials disagree; any change is within noise) (1):
      - c: 2/3 → 1/3 passed (p = 0.500)

      | task  | verdict   | passed       | p (drop) | steps/trial | tokens/trial | cost/trial |
      | ----- | --------- | ------------ | -------: | ----------: | -----------: | ---------: |
      | a     | regressed | 5/5 → 0/5    |    0.004 |           4 |        1,000 |    $0.0100 |
      | b     | unchanged | 3/3          |    1.000 |           4 |        1,000 |    $0.0100 |
      | c     | flaky     | 2/3 → 1/3    |    0.500 |           4 |        1,000 |    $0.0100 |
      | total |           | 10/11 → 4/11 |          |          12 |        3,000 |    $0.0300 |

      Regression: a regressed (p = 0.004)."
    `);
  });

  test("task names from a hostile report.json are shown as text", () => {
    const text = formatComparisonMarkdown(
      compareReports(report({ "a_[x](y)": "PPPPP" }), report({ "a_[x](y)": "FFFFF" })),
    );

    expect(text).toContain("- a\\_\\[x\\](y): 5/5 → 0/5 passed (p = 0.004)");
  });
});
