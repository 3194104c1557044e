import { rename } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { totalTokens, usageOf } from "../../model/model-client.js";
import { type RecordedRun, recordedRun } from "../../replay/recorded-run.js";
import { allRecordedReplies } from "../../replay/recorded-steps.js";
import { ATTEMPTS_FOLDER } from "../../report/run-folders.js";
import { RUN_MARKER_FILE, runDirState } from "../../run/run-folder.js";
import { readTranscript } from "../../transcript/reader.js";
import { printBatchEnd } from "../batch-end.js";
import type { CliIo } from "../io.js";
import { findRecordedRuns } from "../recorded-inputs.js";
import type { ResumeArgs } from "../replay-flags.js";
import { outDirOf, type ReplayJob, refuseDuplicateRunDirs, runReplayJobs } from "./replay-jobs.js";

/**
 * `agent-run resume <runs...>`: continue runs stopped by a limit, a cancellation or a kill. Each
 * is a task's run folder, or a batch's output folder: there, the finished runs are kept and the
 * interrupted ones resumed (cancelled, killed, or never started). Prints each output folder's
 * table as `run` does; returns 1 when a resumed task, or a task of a batch folder, did not pass.
 */
export async function resumeCommand(
  args: ResumeArgs,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const startedAt = performance.now();
  const { jobs, batches } = await resumeJobs(args);
  refuseDuplicateRunDirs(jobs);
  for (const job of jobs) {
    // The earlier transcript stays beside the new one, and the new one's origin points at it;
    // so do a trial's earlier attempts.
    const previous = `transcript.before-resume.${job.recorded.sessionId}.jsonl`;
    await rename(job.recorded.path, join(job.runDir, previous));
    job.recorded = { ...job.recorded, path: join(job.runDir, previous) };
    job.preserve = [previous, ATTEMPTS_FOLDER];
  }
  let isBatchFailed = false;
  const outcomes = await runReplayJobs(jobs, args, io, signal, undefined, (report, outDir) => {
    printBatchEnd(io, { report, outDir, wallTimeMs: performance.now() - startedAt });
    if (batches.has(outDir) && report.totals.failed > 0) isBatchFailed = true;
  });
  return isBatchFailed || outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}

/**
 * The jobs to run, each run checked first; and the output folders of the batches given (a batch's
 * folder, or a task's folder of trials), whose every task counts toward the exit code.
 */
async function resumeJobs(args: ResumeArgs): Promise<{ jobs: ReplayJob[]; batches: Set<string> }> {
  const jobs: ReplayJob[] = [];
  // Per folder of runs given, the jobs found in it.
  const givenBatches = new Map<string, ReplayJob[]>();
  const inputs = await findRecordedRuns(args.folders, "resume");
  for (const input of inputs) {
    const folder = resolve(input.folder ?? dirname(input.transcript));
    const recorded = recordedRun(
      input.transcript,
      await readTranscript(input.transcript, { isPartialLastLineDropped: true }),
    );
    let batchJobs: ReplayJob[] | undefined;
    if (input.batch !== undefined) {
      const batch = resolve(input.batch);
      batchJobs = givenBatches.get(batch) ?? [];
      givenBatches.set(batch, batchJobs);
    }
    // In a batch's folder, a run that finished (however it ended) is kept as it is.
    if (batchJobs !== undefined && !isInterrupted(recorded)) continue;
    const job = resumeJob(folder, recorded, args);
    if (runDirState(folder) !== "ours") {
      throw new ConfigError(
        `${folder}: not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker), so resume will not write to it`,
      );
    }
    jobs.push(job);
    batchJobs?.push(job);
  }
  for (const [batch, batchJobs] of givenBatches) {
    if (batchJobs.length > 0) continue;
    throw new ConfigError(
      `${batch}: every run in it finished, so there is nothing to resume; to continue one that stopped at a limit, give its folder (${join(batch, "<task>")}, or ${join(batch, "<task>", "trial-<n>")}) with the limit raised`,
    );
  }
  const batches = new Set([...givenBatches.values()].flat().map(outDirOf));
  return { jobs, batches };
}

/** A run the batch did not let finish: cancelled, killed (no result line), or never started. */
function isInterrupted(recorded: RecordedRun): boolean {
  const status = recorded.ending?.status;
  return status === undefined || status === "cancelled" || status === "not_run";
}

/** What resuming one run means, or why it can't be resumed. */
function resumeJob(folder: string, recorded: RecordedRun, args: ResumeArgs): ReplayJob {
  const status = recorded.ending?.status;
  if (status === "completed") {
    throw new ConfigError(
      `${folder}: this run completed; there is nothing to resume (use \`agent-run replay --until-step K --continue\` to fork it)`,
    );
  }
  if (recorded.isInPlace) {
    throw new ConfigError(
      status === "not_run"
        ? `${folder}: this task never started, and it works in place, while resume runs on a copy; run it again: agent-run --in-place ${recorded.task.file}`
        : `${folder}: this run worked in place, so its starting files are gone; resume works on runs made on a copy`,
    );
  }
  const { limits } = args;
  const raise = {
    max_steps: [limits.maxSteps, "--max-steps"],
    max_tokens: [limits.maxTokens, "--max-tokens"],
  } as const;
  if (
    (status === "max_steps" || status === "max_tokens") &&
    raise[status][0] === undefined &&
    !(status === "max_tokens" && args.isFreshBudget)
  ) {
    throw new ConfigError(
      `${folder}: this run stopped at ${status}; resuming it would stop there again. Raise the limit with ${raise[status][1]}`,
    );
  }
  // The subagents' replies count too: they counted against the run's limits.
  const spentTokens = allRecordedReplies(recorded).reduce(
    (sum, reply) => sum + totalTokens(usageOf(reply.usage)),
    0,
  );
  const maxTokens = limits.maxTokens ?? recorded.task.limits.maxTokens;
  return {
    kind: "resume",
    recorded,
    runDir: folder,
    untilStep: recorded.replies.length,
    isContinued: true,
    isOffline: args.isOffline || recorded.isOffline,
    limits: { ...limits, ...(args.isFreshBudget ? { maxTokens: maxTokens + spentTokens } : {}) },
  };
}
