import { type BatchProgress, createBatchProgress } from "../report/batch-progress.js";
import { createGithubReporter } from "../report/github-actions.js";
import { createLiveReporter } from "../report/live-view.js";
import { createProgressReporter } from "../report/progress.js";
import { type Reporter, type ReportIo, withRedactedInput } from "../report/reporter.js";

/** How a batch talks to its log: progress as it goes, and whatever the CI wants at the end. */
export type BatchLog = Required<Reporter>;

type BatchLogOptions = { isVerbose: boolean; concurrency: number; taskCount: number };

/**
 * The plain log (one line per tool call); on a terminal, the same with a live block of the running
 * tasks and the batch's progress under it; under GitHub Actions, grouped lines, annotations, a job
 * summary and outputs. Off a terminal, a line of the batch's progress follows each task's end
 * (under GitHub Actions, after its group).
 */
export function createBatchLog(io: ReportIo, options: BatchLogOptions): BatchLog {
  return withRedactedInput(createLog(io, options), io.redact);
}

function createLog(io: ReportIo, options: BatchLogOptions): BatchLog {
  const progress = createBatchProgress(options);
  if (io.env.GITHUB_ACTIONS === "true")
    return withProgressLines(createGithubReporter(io, options), progress, io.writeErr);
  if (io.isColor && io.writeErrRaw !== undefined) {
    return createLiveReporter({
      writeRaw: io.writeErrRaw,
      columns: io.columns,
      ...options,
      progress,
    });
  }
  const lines = createProgressReporter({
    write: (line) => io.writeErr(line),
    isColor: io.isColor,
    isVerbose: options.isVerbose,
  });
  return withProgressLines({ ...lines, onBatchEnd: async () => {} }, progress, io.writeErr);
}

/** `log`, and after each task's end (its group closed), the batch's progress line. */
function withProgressLines(
  log: BatchLog,
  progress: BatchProgress,
  write: (line: string) => void,
): BatchLog {
  return {
    ...log,
    onTaskStart(name, detail) {
      progress.taskStarted(name);
      log.onTaskStart(name, detail);
    },
    onTaskEnd(summary) {
      log.onTaskEnd(summary);
      progress.taskEnded(summary);
      write(progress.line());
    },
  };
}
