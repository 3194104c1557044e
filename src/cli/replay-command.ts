import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { type RecordedRun, recordedRun } from "../replay/recorded-run.js";
import { type ReplayKind, replayRun } from "../replay/replay-run.js";
import { writeBatchReport } from "../report/batch-report.js";
import { formatDuration } from "../report/format.js";
import { createProgressReporter } from "../report/progress.js";
import type { TaskSummary } from "../report/summary.js";
import { loadTasks } from "../task/load-task.js";
import type { Limits, Task } from "../task/schema.js";
import { readTranscript } from "../transcript/reader.js";
import { buildCommandEnv } from "./command-env.js";
import type { CliIo } from "./io.js";
import { continuationModel, loadPrices } from "./models.js";
import { durationFlag, nonEmpty, positiveIntFlag, stringFlag } from "./options.js";

export const DEFAULT_REPLAY_OUT_DIR = "agent-run-replays";

const LIMIT_FLAGS = {
  "max-steps": { type: "string", describe: "Raise or lower limits.max_steps" },
  "max-tokens": { type: "string", describe: "Raise or lower limits.max_tokens" },
  timeout: { type: "string", describe: "Replace limits.timeout (e.g. 90s, 10m)" },
} as const;

const COMMON_FLAGS = {
  "allow-changed-workspace": {
    type: "boolean",
    default: false,
    describe: "Replay even if the recorded workspace's files changed since the run",
  },
  offline: {
    type: "boolean",
    default: false,
    describe: "Continue with the task's scripted replies, not the API",
  },
  model: {
    alias: "m",
    type: "string",
    describe: "Model to continue with (default: the recorded one)",
  },
  verbose: {
    alias: "v",
    type: "boolean",
    default: false,
    describe: "Also log the model's text and tool errors",
  },
  prices: { type: "string", describe: "JSON file of model prices to add or override" },
} as const;

/** `agent-run replay`'s flags. */
export const REPLAY_FLAGS = {
  out: {
    alias: "o",
    type: "string",
    default: DEFAULT_REPLAY_OUT_DIR,
    describe: "Folder for the replayed runs",
  },
  task: {
    type: "string",
    describe: "Task file whose checks (and, with --continue, settings) replace the recorded ones",
  },
  strict: {
    type: "boolean",
    default: false,
    describe: "Exit 1 when any tool result differs from the recording",
  },
  "until-step": {
    type: "string",
    describe: "Replay steps 1..K only (with --continue: then go on live)",
  },
  continue: {
    type: "boolean",
    default: false,
    describe: "After --until-step K, continue with a model (a fork)",
  },
  ...COMMON_FLAGS,
  ...LIMIT_FLAGS,
} as const;

/** `agent-run resume`'s flags. */
export const RESUME_FLAGS = {
  "fresh-budget": {
    type: "boolean",
    default: false,
    describe: "Do not count the recorded tokens toward max_tokens",
  },
  ...COMMON_FLAGS,
  ...LIMIT_FLAGS,
} as const;

type Job = {
  kind: ReplayKind;
  recorded: RecordedRun;
  outDir: string;
  untilStep: number;
  isContinued: boolean;
};

/**
 * `agent-run replay <transcripts...>`: re-run recorded runs offline and report divergences;
 * with `--until-step K --continue`, fork them. Returns the summaries; `--strict` and divergences
 * are reflected in the exit code by the caller.
 */
export async function replayCommand(
  args: Record<string, unknown>,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const transcripts = Array.isArray(args.transcripts) ? args.transcripts.map(String) : [];
  const untilStep = positiveIntFlag("--until-step", args["until-step"]);
  const isContinued = args.continue === true;
  if (isContinued && untilStep === undefined)
    throw new ConfigError(
      "--continue needs --until-step K: the step after which the new model takes over",
    );
  const taskFile = stringFlag(args.task);
  if (taskFile !== undefined && transcripts.length > 1)
    throw new ConfigError("--task goes with one transcript at a time");
  const outDir = resolve(stringFlag(args.out) ?? DEFAULT_REPLAY_OUT_DIR);
  const jobs: Job[] = [];
  for (const path of transcripts) {
    const recorded = recordedRun(path, await readTranscript(path));
    const steps = recorded.replies.length;
    const job: Job = {
      kind: isContinued ? "fork" : "replay",
      recorded,
      outDir,
      untilStep: Math.min(untilStep ?? steps, steps),
      isContinued,
    };
    refuseOwnFolder(job, path);
    jobs.push(job);
  }
  const task = taskFile === undefined ? undefined : (await loadTasks([taskFile]))[0];
  const outcomes = await runJobs(jobs, args, io, signal, task);
  const isStrictFailure =
    args.strict === true && outcomes.some((outcome) => outcome.divergentSteps > 0);
  return isStrictFailure || outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}

/** `agent-run resume <run folders...>`: continue runs stopped by a limit, a cancellation or a kill. */
export async function resumeCommand(
  args: Record<string, unknown>,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const folders = Array.isArray(args.runs) ? args.runs.map(String) : [];
  const jobs: Job[] = [];
  for (const folder of folders) {
    const path = join(folder, "transcript.jsonl");
    if (!existsSync(path))
      throw new ConfigError(
        `${folder}: no transcript.jsonl here; give the run's folder (DIR/<task>)`,
      );
    const recorded = recordedRun(
      path,
      await readTranscript(path, { isPartialLastLineDropped: true }),
    );
    if (recorded.ending?.status === "completed")
      throw new ConfigError(
        `${folder}: this run completed; there is nothing to resume (use \`agent-run replay --until-step K --continue\` to fork it)`,
      );
    if (recorded.isInPlace)
      throw new ConfigError(
        `${folder}: this run worked in place, so its starting files are gone; resume works on runs made on a copy`,
      );
    jobs.push({
      kind: "resume",
      recorded,
      outDir: resolve(folder, ".."),
      untilStep: recorded.replies.length,
      isContinued: true,
    });
  }
  const outcomes = await runJobs(jobs, args, io, signal, undefined);
  return outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}

/** Runs the jobs one after another, logging progress and divergences, then prints the table. */
async function runJobs(
  jobs: readonly Job[],
  args: Record<string, unknown>,
  io: CliIo,
  signal: AbortSignal,
  task: Task | undefined,
): Promise<Array<{ summary: TaskSummary; divergentSteps: number }>> {
  const prices = await loadPrices(stringFlag(args.prices) ?? nonEmpty(io.env.AGENT_RUN_PRICES));
  const apiKey = nonEmpty(io.env.ANTHROPIC_API_KEY);
  const progress = createProgressReporter({
    write: io.writeErr,
    isColor: io.isColor,
    isVerbose: args.verbose === true,
  });
  const limits = limitOverrides(args);
  const startedAt = performance.now();
  const outcomes: Array<{ summary: TaskSummary; divergentSteps: number }> = [];
  for (const job of jobs) {
    const name = job.recorded.task.name;
    const next = job.isContinued
      ? await continuationModel({
          recorded: job.recorded,
          task,
          untilStep: job.untilStep,
          isOffline: args.offline === true,
          model: stringFlag(args.model),
          apiKey,
          env: io.env,
        })
      : undefined;
    progress.onTaskStart(
      name,
      `${job.kind} of ${job.recorded.path}, ${job.untilStep} recorded steps${next === undefined ? "" : `, then ${next.name}`}`,
    );
    const outcome = await replayRun({
      kind: job.kind,
      recorded: job.recorded,
      outDir: job.outDir,
      task,
      untilStep: job.untilStep,
      next,
      limits,
      isRecordedUsageCounted: args["fresh-budget"] !== true,
      isChangedWorkspaceAllowed: args["allow-changed-workspace"] === true,
      prices,
      baseEnv: buildCommandEnv(io.env, apiKey),
      signal,
      onEvent: (event) => progress.onEvent(name, event),
      onCheck: (check) => progress.onCheck(name, check),
    });
    if (outcome.hashMismatch !== undefined)
      io.writeErr(`[${name}] warning: ${outcome.hashMismatch}`);
    io.writeErr(`[${name}] ${describeDivergence(outcome.divergence)}`);
    progress.onTaskEnd(outcome.summary);
    outcomes.push({
      summary: outcome.summary,
      divergentSteps: outcome.divergence.divergentSteps.length,
    });
  }
  const summaries = outcomes.map((outcome) => outcome.summary);
  const outDir = jobs[0]?.outDir;
  if (outDir !== undefined && jobs.every((job) => job.outDir === outDir)) {
    io.writeOut(await writeBatchReport(outDir, summaries));
  }
  io.writeOut(`wall time ${formatDuration(performance.now() - startedAt)}`);
  return outcomes;
}

function describeDivergence(report: Awaited<ReturnType<typeof replayRun>>["divergence"]): string {
  if (report.first === undefined)
    return `replay: no divergence (${report.comparedSteps} steps compared)`;
  const count = report.divergentSteps.length;
  return `replay: diverged at step ${report.first.step} (${report.first.toolName}); ${count} of ${report.comparedSteps} steps differ\n${report.first.diff}`;
}

function limitOverrides(args: Record<string, unknown>): Partial<Limits> {
  const maxSteps = positiveIntFlag("--max-steps", args["max-steps"]);
  const maxTokens = positiveIntFlag("--max-tokens", args["max-tokens"]);
  const timeoutMs = durationFlag("--timeout", args.timeout);
  return {
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/** A replay must not replace the folder holding the transcript it reads. */
function refuseOwnFolder(job: Job, transcript: string): void {
  if (resolve(transcript) === resolve(job.outDir, job.recorded.task.name, "transcript.jsonl")) {
    throw new ConfigError(
      `${transcript}: --out ${job.outDir} would replace the run being replayed; choose another --out`,
    );
  }
}
