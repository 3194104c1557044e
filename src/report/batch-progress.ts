import { formatCost, formatDuration, roundMillionths } from "../format.js";
import { shownCostUsd } from "./aggregate.js";
import { runLabel } from "./run-folders.js";
import type { TaskSummary } from "./summary.js";

/**
 * A batch's overall progress, for the log: `[3/8] done, 1 failed, $0.4200 spent, ~2m left`. Spend
 * is what the final table's total will show for the finished tasks; the time left is the mean
 * wall time of a finished task times the tasks left, over the tasks that run at once.
 */
export type BatchProgress = {
  taskStarted(name: string): void;
  taskEnded(summary: TaskSummary): void;
  /** The progress line now; "estimating" until a task has finished. */
  line(): string;
};

export function createBatchProgress(options: {
  taskCount: number;
  concurrency: number;
  now?: () => number;
}): BatchProgress {
  const now = options.now ?? Date.now;
  const startedAt = new Map<string, number>();
  const ended: { passed: boolean; costUsd: number | null; wallMs: number }[] = [];
  return {
    taskStarted(name) {
      startedAt.set(name, now());
    },
    taskEnded(summary) {
      const label = runLabel(summary);
      const wallMs = now() - (startedAt.get(label) ?? now());
      startedAt.delete(label);
      ended.push({ passed: summary.passed, costUsd: summary.costUsd, wallMs });
    },
    line() {
      const done = ended.length;
      const failed = ended.filter((task) => !task.passed).length;
      const cost = shownCostUsd({
        trials: done,
        unpricedTrials: ended.filter((task) => task.costUsd === null).length,
        costUsd: roundMillionths(ended.reduce((sum, task) => sum + (task.costUsd ?? 0), 0)),
      });
      const spent = cost === null ? "cost unknown" : `${formatCost(cost)} spent`;
      const head = `[${done}/${options.taskCount}] done, ${failed} failed, ${spent}`;
      const left = options.taskCount - done;
      if (left <= 0) return head;
      if (done === 0) return `${head}, estimating the time left`;
      const meanMs = ended.reduce((sum, task) => sum + task.wallMs, 0) / done;
      const leftMs = (meanMs * left) / Math.min(Math.max(1, options.concurrency), left);
      return `${head}, ~${formatDuration(Math.max(1, Math.round(leftMs / 1_000)) * 1_000)} left`;
    },
  };
}
