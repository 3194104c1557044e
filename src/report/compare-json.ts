import { z } from "zod";
import { roundMillionths } from "../format.js";
import type { ReportTotals } from "./aggregate.js";
import { type PerTrial, type ReportComparison, type TaskComparison, VERDICTS } from "./compare.js";
import { DIFFERENCE_KINDS } from "./fingerprint-diff.js";
import { TaskNameJsonSchema } from "./summary-json-schema.js";

// `report --compare --json FILE`: the comparison as JSON, for scripts and dashboards. Typed by
// this schema, which `npm run schema` publishes as schema/comparison.schema.json.

/** The version of the comparison's shape; bumped with any change to it. */
const COMPARISON_VERSION = 1;

const count = z.number().int().nonnegative();
const rate = z.number().min(0).max(1);
const change = z.number().min(-1).max(1);

const SideJsonSchema = z.object({
  tasks: count,
  passed: count.describe("Tasks whose every trial passed."),
  trials: count,
  passed_trials: count,
});

const TaskSideJsonSchema = z.object({
  trials: count,
  passed_trials: count,
  pass_rate: rate,
  flaky: z.boolean(),
  steps_per_trial: z.number().nonnegative(),
  tokens_per_trial: z.number().nonnegative(),
  cost_usd_per_trial: z.number().nonnegative().nullable(),
});

export const ComparisonJsonSchema = z
  .object({
    schema_version: z.literal(COMPARISON_VERSION),
    base: SideJsonSchema,
    new: SideJsonSchema,
    mean_pass_rate: z
      .object({
        base: rate,
        new: rate,
        change: change.describe("new minus base, over the tasks in both."),
        interval: z
          .object({ low: change, high: change, level: rate })
          .describe(
            "Percentile interval of the change: a paired, two-level bootstrap (10,000 draws of the tasks, and of each drawn task's trials on each side), seeded.",
          ),
      })
      .describe("The tasks' mean pass rate in each batch, over the tasks in both."),
    regression: z
      .object({
        is_regression: z.boolean(),
        reasons: z.array(z.string()),
        regressed_tasks: z
          .array(TaskNameJsonSchema)
          .describe("Every task whose drop is significant, named with --regression-task or not."),
      })
      .describe(
        "What --fail-on-regression decides: the interval lies wholly below zero, or a task named with --regression-task regressed significantly.",
      ),
    significance_level: rate.describe(
      "A task's one-sided Fisher p-value below this is significant.",
    ),
    differences: z.array(
      z.object({
        kind: z.enum(DIFFERENCE_KINDS),
        refused: z.boolean().describe("Refused (exit 2) without --allow-different."),
        change: z.string(),
        tasks: z.array(TaskNameJsonSchema),
      }),
    ),
    tasks: z.array(
      z.object({
        name: TaskNameJsonSchema,
        verdict: z.enum(VERDICTS),
        p_drop: rate.describe("Fisher's exact test, one-sided: the new batch passes less often."),
        p_rise: rate.describe("The same, the other way: the new batch passes more often."),
        base: TaskSideJsonSchema,
        new: TaskSideJsonSchema,
      }),
    ),
    added: z.array(TaskNameJsonSchema).describe("Tasks only in the new batch."),
    missing: z.array(TaskNameJsonSchema).describe("Tasks only in the base batch."),
  })
  .describe("agent-run report --compare --json: two batches compared task by task.");

type ComparisonJson = z.input<typeof ComparisonJsonSchema>;

/** The comparison's JSON text, two-space indented, with no paths or timestamps. */
export function comparisonJson(comparison: ReportComparison, level: number): string {
  const { meanRate, regression } = comparison;
  const json: ComparisonJson = {
    schema_version: COMPARISON_VERSION,
    base: sideJson(comparison.base.totals),
    new: sideJson(comparison.next.totals),
    mean_pass_rate: {
      base: roundMillionths(meanRate.base),
      new: roundMillionths(meanRate.next),
      change: roundMillionths(meanRate.delta),
      interval: {
        low: roundMillionths(meanRate.interval.low),
        high: roundMillionths(meanRate.interval.high),
        level: meanRate.interval.level,
      },
    },
    regression: {
      is_regression: regression.isRegression,
      reasons: regression.reasons,
      regressed_tasks: regression.regressedTasks,
    },
    significance_level: level,
    differences: comparison.differences.map((difference) => ({
      kind: difference.kind,
      refused: difference.isRefused,
      change: difference.change,
      tasks: difference.tasks,
    })),
    tasks: comparison.tasks.map(taskJson),
    added: comparison.added,
    missing: comparison.missing,
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function sideJson(totals: ReportTotals): ComparisonJson["base"] {
  return {
    tasks: totals.tasks,
    passed: totals.passed,
    trials: totals.trials,
    passed_trials: totals.passedTrials,
  };
}

function taskJson(task: TaskComparison): ComparisonJson["tasks"][number] {
  const side = (which: "base" | "next") => {
    const report = task[which];
    const figures: PerTrial = task.perTrial[which];
    return {
      trials: report.trials,
      passed_trials: report.passedTrials,
      pass_rate: roundMillionths(report.passRate),
      flaky: report.isFlaky,
      steps_per_trial: roundMillionths(figures.steps),
      tokens_per_trial: roundMillionths(figures.totalTokens),
      cost_usd_per_trial: figures.costUsd === null ? null : roundMillionths(figures.costUsd),
    };
  };
  return {
    name: task.name,
    verdict: task.verdict,
    p_drop: roundMillionths(task.pDrop),
    p_rise: roundMillionths(task.pRise),
    base: side("base"),
    new: side("next"),
  };
}
