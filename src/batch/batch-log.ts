import { createGithubReporter } from "../report/github-actions.js";
import { createLiveReporter } from "../report/live-view.js";
import { createProgressReporter } from "../report/progress.js";
import { type Reporter, type ReportIo, withRedactedInput } from "../report/reporter.js";

/** How a batch talks to its log: progress as it goes, and whatever the CI wants at the end. */
export type BatchLog = Required<Reporter>;

/**
 * The plain log (one line per tool call); on a terminal, the same with a live block of the running
 * tasks under it; under GitHub Actions, grouped lines, annotations, a job summary and outputs.
 */
export function createBatchLog(
  io: ReportIo,
  options: { isVerbose: boolean; concurrency: number },
): BatchLog {
  return withRedactedInput(createLog(io, options), io.redact);
}

function createLog(io: ReportIo, options: { isVerbose: boolean; concurrency: number }): BatchLog {
  if (io.env.GITHUB_ACTIONS === "true") return createGithubReporter(io, options);
  if (io.isColor && io.writeErrRaw !== undefined) {
    return createLiveReporter({ writeRaw: io.writeErrRaw, columns: io.columns, ...options });
  }
  const progress = createProgressReporter({
    write: (line) => io.writeErr(line),
    isColor: io.isColor,
    isVerbose: options.isVerbose,
  });
  return { ...progress, onBatchEnd: async () => {} };
}
