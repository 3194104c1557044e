import { createBatchLog } from "../../batch/batch-log.js";
import { ConfigError } from "../../errors.js";
import { type ModelClient, toModelReply } from "../../model/model-client.js";
import { findPrice, type PriceTable, replyCostUsd } from "../../model/pricing.js";
import { buildCommandEnv } from "../../process/command-env.js";
import type { DivergenceReport } from "../../replay/divergence.js";
import type { RecordedRun } from "../../replay/recorded-run.js";
import { checkWorkspace, type ReplayKind, replayRun } from "../../replay/replay-run.js";
import type { Report } from "../../report/aggregate.js";
import { refreshFolderReport } from "../../report/folder-report.js";
import { batchDirOf, runLabel } from "../../report/run-folders.js";
import type { TaskSummary } from "../../report/summary.js";
import type { Limits, Task } from "../../task/schema.js";
import { type CliIo, withMoreSecrets } from "../io.js";
import { continuationModel, loadPrices } from "../models.js";
import { providerSecrets, settleProvider } from "../provider-setup.js";
import type { ReplayCommonArgs } from "../replay-flags.js";

/** One recorded run to replay, fork or resume, and where its new run goes. */
export type ReplayJob = {
  kind: ReplayKind;
  recorded: RecordedRun;
  runDir: string;
  untilStep: number;
  isContinued: boolean;
  isOffline: boolean;
  preserve?: string[];
  limits: Partial<Limits>;
};

/** A finished job: the new run's summary and how far its tool results matched the recording. */
export type ReplayOutcome = { summary: TaskSummary; divergentSteps: number };

/**
 * Runs the jobs one after another, logging progress and divergences in `run`'s batch log; then,
 * for each output folder, rebuilds its `report.json`, has `printEnd` print it, and ends the log as
 * `run` does (under GitHub Actions: annotations, job summary, step outputs).
 */
export async function runReplayJobs(
  jobs: readonly ReplayJob[],
  args: ReplayCommonArgs,
  io: CliIo,
  signal: AbortSignal,
  givenTask: Task | undefined,
  printEnd: (report: Report, outDir: string) => void,
): Promise<ReplayOutcome[]> {
  const prices = await loadPrices(args.pricesFile);
  const task =
    givenTask === undefined
      ? undefined
      : settleProvider(
          givenTask,
          { provider: undefined, baseURL: undefined },
          io.env,
          jobs.every((job) => !job.isContinued || job.isOffline),
        );
  const keys = providerSecrets(
    task === undefined ? jobs.map((job) => job.recorded.task) : [task],
    io.env,
  );
  io = withMoreSecrets(io, keys);
  // No live view: the divergence lines are written between the log's own.
  const progress = createBatchLog(
    { ...io, writeErrRaw: undefined },
    { isVerbose: args.isVerbose, concurrency: 1, taskCount: jobs.length },
  );
  // Every workspace is checked before the first replay starts, so a refusal leaves nothing half done.
  const mismatches: Array<string | undefined> = [];
  for (const job of jobs) {
    mismatches.push(await checkWorkspace(job.recorded, args.isChangedWorkspaceAllowed));
  }
  const nexts = await continuationModels(jobs, task, args.model, io.env, prices);
  const outcomes: ReplayOutcome[] = [];
  for (const [index, job] of jobs.entries()) {
    const name = runLabel({ name: job.recorded.task.name, trial: job.recorded.trial });
    const next = nexts[index];
    progress.onTaskStart(
      name,
      `${job.kind} of ${job.recorded.path}, ${job.untilStep} recorded ${job.untilStep === 1 ? "step" : "steps"}${next === undefined ? "" : `, then ${next.name}`}`,
    );
    const mismatch = mismatches[index];
    if (mismatch !== undefined) io.writeErr(`[${name}] warning: ${mismatch}`);
    const outcome = await replayRun({
      ...job,
      ...(job.preserve === undefined ? {} : { preserve: job.preserve }),
      task,
      next,
      prices,
      baseEnv: buildCommandEnv(io.env, keys),
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
  for (const outDir of new Set(jobs.map(outDirOf))) {
    const report = await refreshFolderReport(outDir, io.redact);
    printEnd(report, outDir);
    const summaries = outcomes
      .filter((_, index) => {
        const job = jobs[index];
        return job !== undefined && outDirOf(job) === outDir;
      })
      .map((outcome) => outcome.summary);
    await progress.onBatchEnd(summaries, report, outDir);
  }
  return outcomes;
}

/** The output folder (OUT) a job's run folder is in: `OUT/<task>`, or `OUT/<task>/trial-<n>`. */
export function outDirOf(job: ReplayJob): string {
  return batchDirOf(job.runDir, job.recorded.trial);
}

/** The model each fork or resume goes on with, each job's cost cap checked, before any job runs. */
async function continuationModels(
  jobs: readonly ReplayJob[],
  task: Task | undefined,
  model: string | undefined,
  env: CliIo["env"],
  prices: PriceTable,
): Promise<Array<{ model: ModelClient; name: string } | undefined>> {
  const nexts: Array<{ model: ModelClient; name: string } | undefined> = [];
  for (const job of jobs) {
    const { recorded, untilStep, isOffline } = job;
    const next = job.isContinued
      ? await continuationModel({ recorded, task, untilStep, isOffline, model, env })
      : undefined;
    refuseUnpricedCostCap(job, task, next?.name, prices);
    nexts.push(next);
  }
  return nexts;
}

/**
 * A `max_cost_usd` the replay could not enforce is refused before anything runs, as `run` refuses
 * one (`refuseUnpricedSpendingCaps`): a recorded step it serves whose cost is unknown (priced as
 * the recorded model), or a model to go on with that has no price.
 */
function refuseUnpricedCostCap(
  job: ReplayJob,
  given: Task | undefined,
  nextName: string | undefined,
  prices: PriceTable,
): void {
  const { recorded } = job;
  // The task the replay runs (see `replayedTask`): a fork's or resume's `--task`, else the recording's.
  const task = job.kind === "replay" || given === undefined ? recorded.task : given;
  if ({ ...task.limits, ...job.limits }.maxCostUsd === undefined) return;
  const asRecorded = { provider: recorded.task.provider.name, model: recorded.model };
  const unknownStep = recorded.replies
    .slice(0, job.untilStep)
    .findIndex((reply) => replyCostUsd(prices, asRecorded, toModelReply(reply)) === null);
  const unpriced =
    unknownStep !== -1
      ? `recorded step ${unknownStep + 1} (${recorded.model} on ${asRecorded.provider})`
      : nextName !== undefined &&
          findPrice(prices, { provider: task.provider.name, model: nextName }) === undefined
        ? `the model to go on with (${nextName} on ${task.provider.name})`
        : undefined;
  if (unpriced === undefined) return;
  throw new ConfigError(
    `${recorded.path}: no price is known for ${unpriced}, so max_cost_usd cannot be enforced; add its price with --prices FILE`,
  );
}

function describeDivergence(report: DivergenceReport): string {
  const compared = `${report.comparedSteps} ${report.comparedSteps === 1 ? "step" : "steps"} compared`;
  if (report.first === undefined) return `replay: no divergence (${compared})`;
  const count = report.divergentSteps.length;
  const { first } = report;
  // A subagent's result: the step of its task call, then its own step.
  const where =
    first.subagent === undefined
      ? `step ${first.step}`
      : `step ${first.step}, in the subagent of task call ${first.subagent.toolUseId} at its step ${first.subagent.step}`;
  return `replay: diverged at ${where} (${first.toolName}); ${count} of ${report.comparedSteps} steps differ\n${first.diff}`;
}

/** Two jobs writing the same run folder would clobber each other and count twice in a report. */
export function refuseDuplicateRunDirs(jobs: readonly ReplayJob[]): void {
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
