import { compareNames, type Report, type ReportTask, shownCostUsd, sumRuns } from "./aggregate.js";
import { type FingerprintDifference, pairedDifferences, pairTasks } from "./fingerprint-diff.js";
import {
  bootstrapMeanInterval,
  fisherDropPValue,
  type Interval,
  type PassCount,
} from "./significance.js";

// Comparing two batches task by task on their pass rates over trials: a task regressed only when
// its drop is significant (Fisher's exact test), the batch's mean change has a confidence interval
// (a paired, two-level bootstrap), and tasks whose trials disagree are flaky, not flipped.

/** A drop (or rise) is significant when its one-sided p-value is below this. */
export const SIGNIFICANCE_LEVEL = 0.05;

/**
 * What became of a task present in both batches:
 * - `regressed` / `improved`: its pass rate fell (rose) significantly;
 * - `flaky`: its trials disagree in either batch, and any change is within noise;
 * - `pass_to_fail` / `fail_to_pass`: every trial passed, now none does (or the reverse), but too
 *   few trials to call it significant (one trial each never is);
 * - `unchanged`: the same outcome in every trial of both.
 */
export const VERDICTS = [
  "regressed",
  "improved",
  "flaky",
  "pass_to_fail",
  "fail_to_pass",
  "unchanged",
] as const;

export type Verdict = (typeof VERDICTS)[number];

/** A task's figures per trial (its trials' sums divided by their number). */
export type PerTrial = { steps: number; totalTokens: number; costUsd: number | null };

/** One task present in both batches. */
export type TaskComparison = {
  name: string;
  base: ReportTask;
  next: ReportTask;
  verdict: Verdict;
  /** Fisher's one-sided p-value that the new batch passes less often (`pRise`: more often). */
  pDrop: number;
  pRise: number;
  /** The new pass rate minus the base one. */
  rateDelta: number;
  perTrial: { base: PerTrial; next: PerTrial };
};

/** The batches' mean pass rates over the tasks in both, and the change's confidence interval. */
export type MeanRate = { base: number; next: number; delta: number; interval: Interval };

/**
 * What `--fail-on-regression` decides, and why: the interval, and the tasks named for it
 * (`--regression-task`); `regressedTasks` lists every task that regressed, named or not.
 */
export type RegressionVerdict = {
  isRegression: boolean;
  reasons: string[];
  regressedTasks: string[];
};

/** Two batches compared; task names sorted. */
export type ReportComparison = {
  base: Report;
  next: Report;
  /** The tasks in both batches. */
  tasks: TaskComparison[];
  /** Only in the new batch, or only in the base. */
  added: string[];
  missing: string[];
  differences: FingerprintDifference[];
  meanRate: MeanRate;
  regression: RegressionVerdict;
};

/**
 * Compares two batches (for example last night's and tonight's) task by task. `namedTasks`: the
 * tasks whose significant drop alone is a regression (`--regression-task`).
 */
export function compareReports(
  base: Report,
  next: Report,
  namedTasks: readonly string[] = [],
): ReportComparison {
  const pairing = pairTasks(base, next);
  const tasks = pairing.pairs
    .map(([before, after]) => compareTask(before, after))
    .sort((a, b) => compareNames(a.name, b.name));
  const meanRate = meanRateOf(tasks);
  return {
    base,
    next,
    tasks,
    added: pairing.added,
    missing: pairing.missing,
    differences: pairedDifferences(pairing),
    meanRate,
    regression: regressionOf(tasks, meanRate, namedTasks),
  };
}

/** A task's passes out of its trials. */
export function passCount(task: ReportTask): PassCount {
  return { passes: task.passedTrials, trials: task.trials };
}

function compareTask(base: ReportTask, next: ReportTask): TaskComparison {
  const pDrop = fisherDropPValue(passCount(base), passCount(next));
  const pRise = fisherDropPValue(passCount(next), passCount(base));
  return {
    name: next.name,
    base,
    next,
    verdict: verdictOf(base, next, pDrop, pRise),
    pDrop,
    pRise,
    rateDelta: next.passRate - base.passRate,
    perTrial: { base: perTrialOf(base), next: perTrialOf(next) },
  };
}

function verdictOf(base: ReportTask, next: ReportTask, pDrop: number, pRise: number): Verdict {
  if (pDrop < SIGNIFICANCE_LEVEL) return "regressed";
  if (pRise < SIGNIFICANCE_LEVEL) return "improved";
  if (base.isFlaky || next.isFlaky) return "flaky";
  if (base.passed && !next.passed) return "pass_to_fail";
  if (!base.passed && next.passed) return "fail_to_pass";
  return "unchanged";
}

/** A task's figures per trial: its trials' sums over their number. */
export function perTrialOf(task: ReportTask): PerTrial {
  const sums = sumRuns(task.runs);
  const cost = shownCostUsd(sums);
  return {
    steps: sums.steps / task.trials,
    totalTokens: sums.totalTokens / task.trials,
    costUsd: cost === null ? null : cost / task.trials,
  };
}

function meanRateOf(tasks: readonly TaskComparison[]): MeanRate {
  const mean = (pick: (task: TaskComparison) => number) =>
    tasks.length === 0 ? 0 : tasks.reduce((sum, task) => sum + pick(task), 0) / tasks.length;
  const base = mean((task) => task.base.passRate);
  const next = mean((task) => task.next.passRate);
  const interval = bootstrapMeanInterval(
    tasks.map((task) => ({ base: passCount(task.base), next: passCount(task.next) })),
  );
  return { base, next, delta: next - base, interval };
}

/**
 * A regression is a mean change whose whole interval lies below zero, or a named task that
 * regressed significantly; noise (flaky tasks, a flip on too few trials) is not. Other tasks'
 * significant drops are listed, not acted on: tested one by one over many tasks, some flaky task
 * would come out significant by chance now and then.
 */
function regressionOf(
  tasks: readonly TaskComparison[],
  meanRate: MeanRate,
  namedTasks: readonly string[],
): RegressionVerdict {
  const reasons: string[] = [];
  const { interval } = meanRate;
  if (interval.high < 0) {
    reasons.push(
      `the mean pass rate fell, and its ${Math.round(interval.level * 100)}% interval lies wholly below zero`,
    );
  }
  const regressed = tasks.filter((task) => task.verdict === "regressed");
  for (const task of regressed) {
    if (namedTasks.includes(task.name)) {
      reasons.push(`${task.name} regressed (${formatP(task.pDrop)})`);
    }
  }
  return {
    isRegression: reasons.length > 0,
    reasons,
    regressedTasks: regressed.map((task) => task.name),
  };
}

/** A p-value as shown: `p = 0.024`, or `p < 0.001`. */
export function formatP(p: number): string {
  return p < 0.001 ? "p < 0.001" : `p = ${p.toFixed(3)}`;
}
