import { usageLine } from "../transcript/lines.js";
import { earlierAttemptJson } from "../transcript/trials.js";
import type { Report, ReportRun, ReportTask, ReportTotals } from "./aggregate.js";
import type { PassEstimate } from "./pass-at-k.js";
import { REPORT_VERSION, type ReportJson } from "./report-json-schema.js";

/**
 * `report.json`'s text: snake_case like `summary.json`, two-space indented, no timestamps or
 * paths, so reports over the same runs are byte-identical (a merge of shards equals one run).
 */
export function reportJson(report: Report): string {
  const json: ReportJson = {
    schema_version: REPORT_VERSION,
    tasks: report.tasks.map(taskJson),
    totals: totalsJson(report.totals),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function totalsJson(totals: ReportTotals): ReportJson["totals"] {
  return {
    tasks: totals.tasks,
    passed: totals.passed,
    failed: totals.failed,
    pass_rate: totals.passRate,
    trials: totals.trials,
    passed_trials: totals.passedTrials,
    flaky_tasks: totals.flakyTasks,
    pass_at_k: byK(totals.estimates, (estimate) => estimate.passAtK),
    pass_hat_k: byK(totals.estimates, (estimate) => estimate.passHatK),
    statuses: totals.statuses,
    steps: totals.steps,
    usage: usageLine(totals.usage),
    total_tokens: totals.totalTokens,
    cost_usd: totals.costUsd,
    unpriced_trials: totals.unpricedTrials,
    duration_ms: totals.durationMs,
    changed_file_count: totals.changedFileCount,
    check_count: totals.checkCount,
    failed_check_count: totals.failedCheckCount,
    retries: {
      attempts: totals.retries.attempts,
      total_tokens: totals.retries.totalTokens,
      cost_usd: totals.retries.costUsd,
    },
  };
}

/** `{"1": 0.5, "2": 0.75}`: an estimate keyed by k. */
function byK(
  estimates: readonly PassEstimate[],
  pick: (estimate: PassEstimate) => number,
): Record<string, number> {
  return Object.fromEntries(estimates.map((estimate) => [String(estimate.k), pick(estimate)]));
}

function taskJson(task: ReportTask): ReportJson["tasks"][number] {
  return {
    name: task.name,
    task_file: task.taskFile,
    trials: task.trials,
    passed_trials: task.passedTrials,
    pass_rate: task.passRate,
    flaky: task.isFlaky,
    passed: task.passed,
    runs: task.runs.map(runJson),
    fingerprint: task.fingerprint,
  };
}

function runJson(run: ReportRun): ReportJson["tasks"][number]["runs"][number] {
  return {
    trial: run.trial,
    attempts: run.attempts,
    model: run.model,
    status: run.status,
    passed: run.passed,
    error: run.error,
    error_kind: run.errorKind,
    steps: run.steps,
    usage: usageLine(run.usage),
    total_tokens: run.totalTokens,
    cost_usd: run.costUsd,
    duration_ms: run.durationMs,
    changed_file_count: run.changedFileCount,
    check_count: run.checkCount,
    failed_checks: run.failedChecks,
    ...(run.limitExceededByFinalReply === null
      ? {}
      : { limit_exceeded_by_final_reply: run.limitExceededByFinalReply }),
    ...(run.plan === undefined ? {} : { plan: run.plan }),
    ...(run.earlierAttempts.length === 0
      ? {}
      : {
          earlier_attempts: run.earlierAttempts.map(earlierAttemptJson),
        }),
  };
}
