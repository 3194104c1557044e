import { resolve } from "node:path";
import { describeLimit } from "../agent/limit-text.js";
import { messageOf } from "../errors.js";
import { type ModelClient, ZERO_USAGE } from "../model/model-client.js";
import { type PriceTable, replyCostUsd } from "../model/pricing.js";
import type { Redactor } from "../redact.js";
import { removeBatchReport } from "../report/batch-report.js";
import { REFUSED_KEY_REASON, type TaskSummary } from "../report/summary.js";
import type { RunTaskOptions } from "../run/run-options.js";
import { runTask, skipTask } from "../run/run-task.js";
import type { Task } from "../task/schema.js";
import type { Sandbox } from "../tools/sandbox.js";
import type { BatchBudget } from "./batch-budget.js";
import type { BatchLog } from "./batch-log.js";
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
  /** Where the log says each task works, for its start line. */
  describeWorkspace: (task: Task) => string;
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

/** What a batch ended with: one summary per task, in task-file order, and any refused keys. */
export type BatchOutcome = { summaries: TaskSummary[]; refusals: KeyRefusal[] };

/**
 * Runs the batch's tasks, at most `concurrency` at once, under the batch budget, each reported to
 * `log` as it goes. Never throws for a task.
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
  for (const task of batch.tasks) {
    await notStarted(taskOptions(task, batch.modelOf(task), context), batch.outDir, PENDING);
  }
  const summaries = await mapWithConcurrency(batch.tasks, batch.concurrency, (task) =>
    runOne(task, context),
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

/** Runs one task of the batch (or records it as skipped or not started); never throws. */
async function runOne(task: Task, context: BatchContext): Promise<TaskSummary> {
  const { batch, log, signal } = context;
  const model = batch.modelOf(task);
  const options = taskOptions(task, model, context);
  if (signal.aborted) return notStarted(options, batch.outDir, NOT_STARTED_REASON);
  const skipReason = skipReasonOf(task, context);
  const detail = `${model.name}${batch.isOffline ? ", offline" : ""}, ${batch.describeWorkspace(task)}`;
  log.onTaskStart(task.name, skipReason === undefined ? detail : "skipped");
  const summary = await (skipReason === undefined
    ? runTask(options)
    : skipTask(options, skipReason)
  ).catch((error: unknown) =>
    failed(task, model.name, batch.outDir, `internal error: ${messageOf(error)}`),
  );
  log.onTaskEnd(summary);
  return summary;
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

/** How the batch runs one task: its model, the batch's settings, and the log and budget hooks. */
function taskOptions(
  task: Task,
  model: { name: string; client: ModelClient },
  context: BatchContext,
): RunTaskOptions {
  const { batch, log, budget, signal, state } = context;
  return {
    task,
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
      log.onEvent(task.name, event);
    },
    onCheck: (check) => log.onCheck(task.name, check),
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
 * A task the batch has not started (yet, or at all: it was cancelled first): recorded as
 * `not_run`, at no cost, so that the report does not count it as a task without a price and
 * `agent-run resume OUT` runs it.
 */
async function notStarted(
  options: RunTaskOptions,
  outDir: string,
  reason: string,
): Promise<TaskSummary> {
  const { task, modelName } = options;
  return skipTask(options, reason, "not_run").catch((error: unknown) => ({
    ...failed(task, modelName, outDir, `${reason}; ${messageOf(error)}`),
    status: "not_run" as const,
    costUsd: 0,
  }));
}

/** A summary for a task that has no run to speak of. */
function failed(task: Task, model: string, outDir: string, error: string): TaskSummary {
  return {
    name: task.name,
    taskFile: task.file,
    status: "error",
    error,
    model,
    steps: 0,
    usage: ZERO_USAGE,
    costUsd: null,
    durationMs: 0,
    finalText: "",
    changedFiles: [],
    gitChanges: [],
    workspace: task.workspace,
    runDir: resolve(outDir, task.name),
    patchFile: null,
    checks: [],
    passed: false,
  };
}
