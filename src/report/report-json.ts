import { usageLine } from "../transcript/lines.js";
import type { Report, ReportTask } from "./aggregate.js";
import { REPORT_VERSION, type ReportJson } from "./report-json-schema.js";

/**
 * `report.json`'s text: snake_case like `summary.json`, two-space indented, no timestamps or
 * paths, so reports over the same runs are byte-identical (a merge of shards equals one run).
 */
export function reportJson(report: Report): string {
  const totals = report.totals;
  const json: ReportJson = {
    schema_version: REPORT_VERSION,
    tasks: report.tasks.map(taskJson),
    totals: {
      tasks: totals.tasks,
      passed: totals.passed,
      failed: totals.failed,
      pass_rate: totals.passRate,
      statuses: totals.statuses,
      steps: totals.steps,
      usage: usageLine(totals.usage),
      total_tokens: totals.totalTokens,
      cost_usd: totals.costUsd,
      unpriced_tasks: totals.unpricedTasks,
      duration_ms: totals.durationMs,
      changed_file_count: totals.changedFileCount,
      check_count: totals.checkCount,
      failed_check_count: totals.failedCheckCount,
    },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

function taskJson(task: ReportTask): ReportJson["tasks"][number] {
  return {
    name: task.name,
    task_file: task.taskFile,
    model: task.model,
    status: task.status,
    passed: task.passed,
    error: task.error,
    steps: task.steps,
    usage: usageLine(task.usage),
    total_tokens: task.totalTokens,
    cost_usd: task.costUsd,
    duration_ms: task.durationMs,
    changed_file_count: task.changedFileCount,
    check_count: task.checkCount,
    failed_checks: task.failedChecks,
    ...(task.limitExceededByFinalReply === null
      ? {}
      : { limit_exceeded_by_final_reply: task.limitExceededByFinalReply }),
    ...(task.plan === undefined ? {} : { plan: task.plan }),
  };
}
