import { join, resolve } from "node:path";
import { describeLimit } from "../agent/limit-text.js";
import { messageOf } from "../errors.js";
import { type ModelClient, ZERO_USAGE } from "../model/model-client.js";
import { type PriceTable, replyCostUsd } from "../model/pricing.js";
import type { Redactor } from "../redact.js";
import { removeBatchReport } from "../report/batch-report.js";
import { ATTEMPTS_FOLDER, runDirOf } from "../report/run-folders.js";
import { earlierAttemptOf, REFUSED_KEY_REASON, type TaskSummary } from "../report/summary.js";
import { clearRunDir, keepAttempt } from "../run/run-folder.js";
import type { RunTaskOptions } from "../run/run-options.js";
import { runTask, skipTask } from "../run/run-task.js";
import type { Task } from "../task/schema.js";
import type { Sandbox } from "../tools/sandbox.js";
import type { EarlierAttempt, Trial } from "../transcript/trials.js";
import type { BatchBudget } from "./batch-budget.js";
import type { BatchLog } from "./batch-log.js";
import { type BatchRun, batchRuns, isRetried, labelOf } from "./batch-runs.js";
import { mapWithConcurrency } from "./task-pool.js";

/** Everything a batch needs, validated before its first task starts. */
export type Batch = {
  tasks: readonly Task[];
  modelOf: (task: Task) => { name: string; client: ModelClient };
  prices: PriceTable;
  outDir: string;
  baseEnv: Record<string, string>;
  redact: Redactor | undefined;
  concurrency: number;
  isInPlace: boolean;
  isOffline: boolean;
  /** `--sandbox`: overrides each task's own. */
  sandbox: Sandbox | undefined;
  /** Where the log says a run works, for its start line. */
  describeWorkspace: (task: Task, trial: Trial | undefined) => string;
  /** `--retry-errors`: how many more times a trial that failed on infrastructure runs. */
  retryErrors: number;
};

/** A key the API refused (401/403): a configuration error, which the CLI reports once. */
export type KeyRefusal = {
  /** The first task it was refused in. */
  task: Task;
  /** The HTTP status, when the error came with one. */
  status: number | null;
  /** How many tasks using the same key were not started because of it. */
  notRunCount: number;
};

/**
 * What a batch ended with: one summary per run (each task's, or each of its trials', its last
 * attempt), in task-file order, and any refused keys.
 */
export type BatchOutcome = { summaries: TaskSummary[]; refusals: KeyRefusal[] };

/**
 * Runs the batch's tasks, each as many times as its trials, at most `concurrency` runs at once
 * (trials of one task side by side), under the batch budget, each reported to `log` as it goes.
 * A trial that fails on infrastructure runs again, up to `retryErrors` more times. Never throws
 * for a task.
 */
export async function runBatch(
  batch: Batch,
  log: BatchLog,
  budget: BatchBudget,
  signal: AbortSignal,
): Promise<BatchOutcome> {
  // Per key and endpoint, the first task whose key was refused (401/403): later tasks using the
  // same key there are not started; tasks on other providers still run.
  const state: BatchState = { refusedKeys: new Map() };
  const context: BatchContext = { batch, log, budget, signal, state };
  // Every task is on record before the first starts, each replaced when it runs: a batch killed
  // outright (SIGKILL) still lists the tasks it never got to, and no earlier run's outcome remains.
  await removeBatchReport(batch.outDir);
  const runs = batchRuns(batch.tasks);
  for (const task of batch.tasks) {
    // A task's folder of trials holds them alone: an earlier run's files and trials go.
    if (task.trials > 1) await clearRunDir(join(batch.outDir, task.name), []);
  }
  for (const run of runs) {
    const options = runOptions(run, [], batch.modelOf(run.task), context);
    await notStarted(options, PENDING);
  }
  const summaries = await mapWithConcurrency(runs, batch.concurrency, (run) =>
    runTrial(run, context),
  );
  return { summaries, refusals: [...state.refusedKeys.values()] };
}

type BatchContext = {
  batch: Batch;
  log: BatchLog;
  budget: BatchBudget;
  signal: AbortSignal;
  state: BatchState;
};

type BatchState = { refusedKeys: Map<string, KeyRefusal> };

/** Which key a task sends where: tasks sharing it are refused alike. */
function keyOf(task: Task): string {
  return JSON.stringify([task.provider.apiKeyEnv, task.provider.baseURL]);
}

/**
 * Runs one trial of the batch (or records it as skipped or not started), again while it fails on
 * infrastructure and retries are left (each earlier attempt kept in `attempts/<n>/` of its run
 * folder); never throws. Its last attempt counts.
 */
async function runTrial(run: BatchRun, context: BatchContext): Promise<TaskSummary> {
  const { batch, log, signal } = context;
  const model = batch.modelOf(run.task);
  const first = runOptions(run, [], model, context);
  if (signal.aborted) return notStarted(first, NOT_STARTED_REASON);
  const skipReason = skipReasonOf(run.task, context);
  const detail = `${model.name}${batch.isOffline ? ", offline" : ""}, ${batch.describeWorkspace(run.task, run.trial)}`;
  log.onTaskStart(labelOf(run), skipReason === undefined ? detail : "skipped");
  let summary = await runSafely(
    skipReason === undefined ? runTask(first) : skipTask(first, skipReason),
    first,
  );
  const earlier: EarlierAttempt[] = [];
  while (
    isRetried(summary, earlier.length + 1, batch.retryErrors, canStartMore(run.task, context))
  ) {
    const number = earlier.length + 2;
    await keepAttempt(summary.runDir, number - 1);
    log.onTaskRetry(summary, number, batch.retryErrors + 1);
    earlier.push(earlierAttemptOf(summary));
    const options = runOptions(run, [...earlier], model, context);
    summary = await runSafely(runTask(options), options);
  }
  log.onTaskEnd(summary);
  return summary;
}

/** A run's summary; a bug in it is an `error` summary, so the batch goes on. */
function runSafely(work: Promise<TaskSummary>, options: RunTaskOptions): Promise<TaskSummary> {
  return work.catch((error: unknown) => failed(options, `internal error: ${messageOf(error)}`));
}

/** Whether the batch still starts runs of `task`: not cancelled, its budget left, its key not refused. */
function canStartMore(task: Task, context: BatchContext): boolean {
  return (
    !context.signal.aborted &&
    context.budget.exhausted() === undefined &&
    !context.state.refusedKeys.has(keyOf(task))
  );
}

/** Why the batch does not start a task: its key was refused in another task, or the budget is spent. */
function skipReasonOf(task: Task, context: BatchContext): string | undefined {
  const spent = context.budget.exhausted();
  const refusedIn = context.state.refusedKeys.get(keyOf(task));
  if (refusedIn !== undefined) refusedIn.notRunCount += 1;
  return refusedIn !== undefined
    ? `${REFUSED_KEY_REASON} in task "${refusedIn.task.name}"; check ${task.provider.apiKeyEnv ?? "the provider's key"}`
    : spent === undefined
      ? undefined
      : describeLimit(spent);
}

/**
 * How the batch runs one attempt at a trial, the one after `earlier` (those that failed on
 * infrastructure): its model, the batch's settings, the log and budget hooks.
 */
function runOptions(
  run: BatchRun,
  earlier: readonly EarlierAttempt[],
  model: { name: string; client: ModelClient },
  context: BatchContext,
): RunTaskOptions {
  const { batch, log, budget, signal, state } = context;
  const { task, trial } = run;
  const label = labelOf(run);
  return {
    task,
    trial,
    attempt: earlier.length + 1,
    earlierAttempts: earlier,
    // The earlier attempts stay in the run folder.
    ...(earlier.length > 0 ? { preserve: [ATTEMPTS_FOLDER] } : {}),
    modelName: model.name,
    model: model.client,
    outDir: batch.outDir,
    inPlace: batch.isInPlace,
    offline: batch.isOffline,
    prices: batch.prices,
    baseEnv: batch.baseEnv,
    sandbox: batch.sandbox,
    signal,
    gate: () => budget.exhausted(),
    onEvent: (event) => {
      if (event.type === "model_reply") {
        const priced = { provider: task.provider.name, model: model.name };
        budget.record(event.reply.usage, replyCostUsd(batch.prices, priced, event.reply));
      }
      // A refused key fails every task alike: say it once, and start no more tasks.
      if (
        event.type === "model_error" &&
        event.category === "authentication" &&
        !state.refusedKeys.has(keyOf(task))
      ) {
        state.refusedKeys.set(keyOf(task), { task, status: event.status, notRunCount: 0 });
      }
      log.onEvent(label, event);
    },
    onCheck: (check) => log.onCheck(label, check),
    ...(batch.redact === undefined ? {} : { redact: batch.redact }),
  };
}

/** Why a `not_run` task was not run: the batch was cancelled first. */
const NOT_STARTED_REASON =
  "not run: the batch was cancelled before this task started (agent-run resume OUT runs it)";

/** The record of a task the batch has not started yet; it stays only if agent-run is killed. */
const PENDING =
  "not run: agent-run stopped (killed?) before this task started (agent-run resume OUT runs it)";

/**
 * A run the batch has not started (yet, or at all: it was cancelled first): recorded as
 * `not_run`, at no cost, so that the report does not count it as a run without a price and
 * `agent-run resume OUT` runs it.
 */
async function notStarted(options: RunTaskOptions, reason: string): Promise<TaskSummary> {
  return skipTask(options, reason, "not_run").catch((error: unknown) => ({
    ...failed(options, `${reason}; ${messageOf(error)}`),
    status: "not_run" as const,
    costUsd: 0,
  }));
}

/** A summary for a run that has no run to speak of. */
function failed(options: RunTaskOptions, error: string): TaskSummary {
  const { task } = options;
  return {
    name: task.name,
    taskFile: task.file,
    status: "error",
    error,
    errorKind: "other",
    model: options.modelName,
    steps: 0,
    usage: ZERO_USAGE,
    costUsd: null,
    durationMs: 0,
    finalText: "",
    changedFiles: [],
    gitChanges: [],
    workspace: task.workspace,
    runDir: resolve(runDirOf(options.outDir, task.name, options.trial)),
    patchFile: null,
    checks: [],
    passed: false,
    trial: options.trial,
    attempt: options.attempt,
    earlierAttempts: options.earlierAttempts,
  };
}
