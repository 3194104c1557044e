import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import type { DivergenceReport } from "../replay/divergence.js";
import { type RecordedRun, recordedRun } from "../replay/recorded-run.js";
import { checkWorkspace, type ReplayKind, replayRun } from "../replay/replay-run.js";
import { refreshFolderReport } from "../report/folder-report.js";
import { createProgressReporter } from "../report/progress.js";
import type { TaskSummary } from "../report/summary.js";
import { loadTasks } from "../task/load-task.js";
import type { Limits, Task } from "../task/schema.js";
import { readTranscript } from "../transcript/reader.js";
import { buildCommandEnv } from "./command-env.js";
import type { CliIo } from "./io.js";
import { continuationModel, loadPrices } from "./models.js";
import { durationFlag, nonEmpty, positiveIntFlag, stringFlag } from "./options.js";
import { isReplaceable } from "./out-dir.js";

import { DEFAULT_REPLAY_OUT_DIR } from "./replay-flags.js";

type Job = {
  kind: ReplayKind;
  recorded: RecordedRun;
  runDir: string;
  untilStep: number;
  isContinued: boolean;
  isOffline: boolean;
  preserve?: string[];
  limits: Partial<Limits>;
};

/**
 * `agent-run replay <transcripts...>`: re-run recorded runs offline and report divergences;
 * with `--until-step K --continue`, fork them. Returns the exit code: 1 when a task did not pass,
 * or, with `--strict`, when a replay diverged.
 */
export async function replayCommand(
  args: Record<string, unknown>,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const transcripts = Array.isArray(args.transcripts) ? args.transcripts.map(String) : [];
  const untilStep = positiveIntFlag("--until-step", args["until-step"]);
  const isContinued = args.continue === true;
  if (isContinued && untilStep === undefined) {
    throw new ConfigError(
      "--continue needs --until-step K: the step after which the new model takes over",
    );
  }
  if (!isContinued && (stringFlag(args.model) !== undefined || args.offline === true)) {
    throw new ConfigError(
      "--model and --offline choose the model a fork continues with; use them with --until-step K --continue",
    );
  }
  const taskFile = stringFlag(args.task);
  if (taskFile !== undefined && transcripts.length > 1)
    throw new ConfigError("--task goes with one transcript at a time");
  const outDir = resolve(stringFlag(args.out) ?? DEFAULT_REPLAY_OUT_DIR);
  const limits = limitOverrides(args);
  const jobs: Job[] = [];
  for (const path of transcripts) {
    const recorded = recordedRun(
      path,
      await readTranscript(path, { isPartialLastLineDropped: true }),
    );
    const steps = recorded.replies.length;
    const runDir = join(outDir, recorded.task.name);
    if (resolve(path) === join(runDir, "transcript.jsonl") || !isReplaceable(runDir)) {
      throw new ConfigError(
        `${path}: --out ${outDir} would replace ${runDir}; choose another --out`,
      );
    }
    const isOffline = args.offline === true;
    jobs.push({
      kind: isContinued ? "fork" : "replay",
      recorded,
      runDir,
      untilStep: Math.min(untilStep ?? steps, steps),
      isContinued,
      isOffline,
      limits,
    });
  }
  refuseDuplicateNames(jobs);
  const task = taskFile === undefined ? undefined : (await loadTasks([taskFile]))[0];
  const outcomes = await runJobs(jobs, args, io, signal, task);
  io.writeOut(await refreshFolderReport(outDir));
  io.writeOut(`outputs in ${outDir}`);
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
  const folders = Array.isArray(args.runs)
    ? args.runs.map((folder) => resolve(String(folder)))
    : [];
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
    jobs.push(resumeJob(folder, recorded, args));
  }
  refuseDuplicateNames(jobs);
  for (const job of jobs) {
    // The earlier transcript stays beside the new one, and the new one's origin points at it.
    const previous = `transcript.before-resume.${job.recorded.sessionId}.jsonl`;
    await rename(job.recorded.path, join(job.runDir, previous));
    job.recorded = { ...job.recorded, path: join(job.runDir, previous) };
    job.preserve = [previous];
  }
  const outcomes = await runJobs(jobs, args, io, signal, undefined);
  for (const outDir of new Set(jobs.map((job) => dirname(job.runDir)))) {
    if (existsSync(join(outDir, "report.json"))) await refreshFolderReport(outDir);
  }
  return outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}

/** What resuming one run means, or why it can't be resumed. */
function resumeJob(folder: string, recorded: RecordedRun, args: Record<string, unknown>): Job {
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
  const limits = limitOverrides(args);
  const raise = {
    max_steps: [limits.maxSteps, "--max-steps"],
    max_tokens: [limits.maxTokens, "--max-tokens"],
  } as const;
  if (
    (status === "max_steps" || status === "max_tokens") &&
    raise[status][0] === undefined &&
    !(status === "max_tokens" && args["fresh-budget"] === true)
  ) {
    throw new ConfigError(
      `${folder}: this run stopped at ${status}; resuming it would stop there again. Raise the limit with ${raise[status][1]}`,
    );
  }
  const spentTokens = recorded.replies.reduce((sum, reply) => sum + tokensOf(reply.usage), 0);
  const maxTokens = limits.maxTokens ?? recorded.task.limits.maxTokens;
  return {
    kind: "resume",
    recorded,
    runDir: folder,
    untilStep: recorded.replies.length,
    isContinued: true,
    isOffline: args.offline === true || recorded.isOffline,
    limits: {
      ...limits,
      ...(args["fresh-budget"] === true ? { maxTokens: maxTokens + spentTokens } : {}),
    },
  };
}

/** Runs the jobs one after another, logging progress and divergences. */
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
  // Every workspace is checked before the first replay starts, so a refusal leaves nothing half done.
  const mismatches: Array<string | undefined> = [];
  for (const job of jobs)
    mismatches.push(await checkWorkspace(job.recorded, args["allow-changed-workspace"] === true));
  const outcomes: Array<{ summary: TaskSummary; divergentSteps: number }> = [];
  for (const [index, job] of jobs.entries()) {
    const name = job.recorded.task.name;
    const mismatch = mismatches[index];
    const next = job.isContinued
      ? await continuationModel({
          recorded: job.recorded,
          task,
          untilStep: job.untilStep,
          isOffline: job.isOffline,
          model: stringFlag(args.model),
          apiKey,
          env: io.env,
        })
      : undefined;
    progress.onTaskStart(
      name,
      `${job.kind} of ${job.recorded.path}, ${job.untilStep} recorded steps${next === undefined ? "" : `, then ${next.name}`}`,
    );
    if (mismatch !== undefined) io.writeErr(`[${name}] warning: ${mismatch}`);
    const outcome = await replayRun({
      kind: job.kind,
      recorded: job.recorded,
      runDir: job.runDir,
      ...(job.preserve === undefined ? {} : { preserve: job.preserve }),
      task,
      untilStep: job.untilStep,
      next,
      isOffline: job.isOffline,
      limits: job.limits,
      prices,
      baseEnv: buildCommandEnv(io.env, apiKey),
      signal,
      onEvent: (event) => progress.onEvent(name, event),
      onCheck: (check) => progress.onCheck(name, check),
      ...(io.redact === undefined ? {} : { redact: io.redact }),
    });
    io.writeErr(`[${name}] ${describeDivergence(outcome.divergence)}`);
    progress.onTaskEnd(outcome.summary);
    outcomes.push({
      summary: outcome.summary,
      divergentSteps: outcome.divergence.divergentSteps.length,
    });
  }
  return outcomes;
}

function describeDivergence(report: DivergenceReport): string {
  const compared = `${report.comparedSteps} ${report.comparedSteps === 1 ? "step" : "steps"} compared`;
  if (report.first === undefined) return `replay: no divergence (${compared})`;
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

/** Two jobs writing the same run folder would clobber each other and count twice in a report. */
function refuseDuplicateNames(jobs: readonly Job[]): void {
  const seen = new Map<string, string>();
  for (const job of jobs) {
    const other = seen.get(job.runDir);
    if (other !== undefined) {
      throw new ConfigError(
        `${job.recorded.path} and ${other} would both write ${job.runDir}; replay them one at a time, each with its own --out`,
      );
    }
    seen.set(job.runDir, job.recorded.path);
  }
}

function tokensOf(usage: Record<string, unknown>): number {
  return [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
  ].reduce((sum, key) => {
    const value = usage[key];
    return sum + (typeof value === "number" ? value : 0);
  }, 0);
}
