import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { totalTokens } from "../model/model-client.js";
import { annotations, jobSummary, outputLines } from "../report/github-actions.js";
import { createLiveView } from "../report/live-view.js";
import { createProgressReporter, type ProgressReporter } from "../report/progress.js";
import type { TaskSummary } from "../report/summary.js";
import type { CliIo } from "./io.js";

/** How a batch talks to its log: progress as it goes, and whatever the CI wants at the end. */
export type BatchLog = ProgressReporter & {
  /** After the batch: annotations, job summary and step outputs under GitHub Actions. */
  finish(summaries: readonly TaskSummary[], reportMarkdown: string, outDir: string): Promise<void>;
};

/**
 * The plain log (one line per tool call); on a terminal, the same with a live block of the running
 * tasks under it; when `GITHUB_ACTIONS=true`, the lines grouped per task with `::group::`, then
 * annotations, a job summary and step outputs.
 */
export function createBatchLog(
  io: CliIo,
  options: { isVerbose: boolean; concurrency: number },
): BatchLog {
  if (io.env.GITHUB_ACTIONS === "true") return createGithubLog(io, options);
  if (io.isColor && io.writeErrRaw !== undefined) return createLiveLog(io, io.writeErrRaw, options);
  const progress = createProgressReporter({
    write: (line) => io.writeErr(line),
    isColor: io.isColor,
    isVerbose: options.isVerbose,
  });
  return { ...progress, finish: async () => {} };
}

/** On a terminal: the same lines, with a live block of the running tasks kept under them. */
function createLiveLog(
  io: CliIo,
  writeRaw: (text: string) => void,
  options: { isVerbose: boolean },
): BatchLog {
  const live = createLiveView({ write: writeRaw, columns: io.columns });
  const progress = createProgressReporter({
    write: (line) => live.print(line),
    isColor: true,
    isVerbose: options.isVerbose,
  });
  const tokens = new Map<string, number>();
  return {
    onTaskStart(name, detail) {
      progress.onTaskStart(name, detail);
      live.start(name);
    },
    onEvent(name, event) {
      progress.onEvent(name, event);
      if (event.type === "model_reply") {
        const total = (tokens.get(name) ?? 0) + totalTokens(event.reply.usage);
        tokens.set(name, total);
        live.update(name, event.step, total);
      }
    },
    onCheck: progress.onCheck,
    onTaskEnd(summary) {
      live.end(summary.name);
      progress.onTaskEnd(summary);
    },
    async finish() {
      live.close();
    },
  };
}

function createGithubLog(
  io: CliIo,
  options: { isVerbose: boolean; concurrency: number },
): BatchLog {
  // One task at a time streams inside its group; with several, each group is written whole at the
  // task's end, so groups never interleave.
  const isStreamed = options.concurrency === 1;
  const buffers = new Map<string, string[]>();
  const progress = createProgressReporter({
    write: (line, task) => (isStreamed ? io.writeErr(line) : buffers.get(task)?.push(line)),
    isColor: false,
    isVerbose: options.isVerbose,
  });
  return {
    onTaskStart(name, detail) {
      if (isStreamed) io.writeErr(`::group::${name}`);
      else buffers.set(name, []);
      progress.onTaskStart(name, detail);
    },
    onEvent: progress.onEvent,
    onCheck: progress.onCheck,
    onTaskEnd(summary) {
      progress.onTaskEnd(summary);
      if (isStreamed) {
        io.writeErr("::endgroup::");
        return;
      }
      io.writeErr(`::group::${summary.name}: ${summary.status}`);
      for (const line of buffers.get(summary.name) ?? []) io.writeErr(line);
      io.writeErr("::endgroup::");
      buffers.delete(summary.name);
    },
    async finish(summaries, reportMarkdown, outDir) {
      const redact = io.redact ?? ((text: string) => text);
      for (const line of annotations(summaries)) io.writeErr(line);
      const summaryFile = io.env.GITHUB_STEP_SUMMARY;
      if (summaryFile !== undefined && summaryFile !== "")
        await appendFile(summaryFile, redact(jobSummary(reportMarkdown, summaries)));
      const outputFile = io.env.GITHUB_OUTPUT;
      if (outputFile === undefined || outputFile === "") return;
      const passed = summaries.filter((summary) => summary.passed).length;
      const cost = summaries.reduce((sum, summary) => sum + (summary.costUsd ?? 0), 0);
      await appendFile(
        outputFile,
        redact(
          outputLines({
            passed,
            failed: summaries.length - passed,
            total: summaries.length,
            cost_usd: Math.round(cost * 1e6) / 1e6,
            report: join(outDir, "report.json"),
            out: outDir,
          }),
        ),
      );
    },
  };
}
