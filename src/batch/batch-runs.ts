import { isInfrastructureError } from "../agent/events.js";
import { runLabel } from "../report/run-folders.js";
import type { TaskSummary } from "../report/summary.js";
import type { Task } from "../task/schema.js";
import type { Trial } from "../transcript/trials.js";

// What a batch runs: each task once, or each of its trials; and each trial again after a
// failure on infrastructure (`--retry-errors`).

/** One run of the batch: a task, and which of its trials (undefined for a task run once). */
export type BatchRun = { task: Task; trial: Trial | undefined };

/** The batch's runs: each task's trials, in order, so that trials of one task start together. */
export function batchRuns(tasks: readonly Task[]): BatchRun[] {
  return tasks.flatMap((task): BatchRun[] => {
    if (task.trials === 1) return [{ task, trial: undefined }];
    return Array.from({ length: task.trials }, (_, index) => ({
      task,
      trial: { index: index + 1, count: task.trials },
    }));
  });
}

/** How the log names a run: `task`, or `task/trial-2` (its folder under OUT). */
export function labelOf(run: BatchRun): string {
  return runLabel({ name: run.task.name, trial: run.trial });
}

/**
 * Whether an attempt runs again: it ended `error` on infrastructure (see `ErrorKind`; never a
 * limit, the loop guard, a protocol error, a failed check or anything the agent did), it was not
 * the last of `1 + retryErrors`, and `canStartMore` (the batch still starts runs).
 */
export function isRetried(
  summary: TaskSummary,
  attempt: number,
  retryErrors: number,
  canStartMore: boolean,
): boolean {
  return (
    summary.status === "error" &&
    isInfrastructureError(summary.errorKind) &&
    attempt <= retryErrors &&
    canStartMore
  );
}
