import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { totalTokens, usageOf } from "../../model/model-client.js";
import { type RecordedRun, recordedRun } from "../../replay/recorded-run.js";
import { refreshFolderReport } from "../../report/folder-report.js";
import { RUN_MARKER_FILE, runDirState, TRANSCRIPT_FILE } from "../../run/run-folder.js";
import { readTranscript } from "../../transcript/reader.js";
import type { CliIo } from "../io.js";
import type { ResumeArgs } from "../replay-flags.js";
import { type ReplayJob, refuseDuplicateRunDirs, runReplayJobs } from "./replay-jobs.js";

/** `agent-run resume <run folders...>`: continue runs stopped by a limit, a cancellation or a kill. */
export async function resumeCommand(
  args: ResumeArgs,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const jobs: ReplayJob[] = [];
  for (const folder of args.folders.map((path) => resolve(path))) {
    const path = join(folder, TRANSCRIPT_FILE);
    if (!existsSync(path))
      throw new ConfigError(
        `${folder}: no transcript.jsonl here; give the run's folder (DIR/<task>)`,
      );
    const recorded = recordedRun(
      path,
      await readTranscript(path, { isPartialLastLineDropped: true }),
    );
    const job = resumeJob(folder, recorded, args);
    if (runDirState(folder) !== "ours") {
      throw new ConfigError(
        `${folder}: not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker), so resume will not write to it`,
      );
    }
    jobs.push(job);
  }
  refuseDuplicateRunDirs(jobs);
  for (const job of jobs) {
    // The earlier transcript stays beside the new one, and the new one's origin points at it.
    const previous = `transcript.before-resume.${job.recorded.sessionId}.jsonl`;
    await rename(job.recorded.path, join(job.runDir, previous));
    job.recorded = { ...job.recorded, path: join(job.runDir, previous) };
    job.preserve = [previous];
  }
  const outcomes = await runReplayJobs(jobs, args, io, signal, undefined);
  for (const outDir of new Set(jobs.map((job) => dirname(job.runDir)))) {
    if (existsSync(join(outDir, "report.json"))) await refreshFolderReport(outDir, io.redact);
  }
  return outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
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
      `${folder}: this run worked in place, so its starting files are gone; resume works on runs made on a copy`,
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
  const spentTokens = recorded.replies.reduce(
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
