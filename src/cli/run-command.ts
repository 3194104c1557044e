import { join, relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { ConfigError, messageOf } from "../errors.js";
import { type ModelClient, ZERO_USAGE } from "../model/model-client.js";
import { estimateCostUsd, findPrice, type PriceTable } from "../model/pricing.js";
import { useSpawnHelpers } from "../process/spawn-helper.js";
import type { Redactor } from "../redact.js";
import { writeBatchReport } from "../report/batch-report.js";
import { formatDuration } from "../report/format.js";
import type { TaskSummary } from "../report/summary.js";
import { runTask } from "../run-task.js";
import {
  makeSnapshotScratch,
  removeSnapshotScratch,
  removeStaleSnapshotScratch,
} from "../snapshot-scratch.js";
import { loadTasks } from "../task/load-task.js";
import { DEFAULT_MODEL, type Task } from "../task/schema.js";
import { assertSandboxAvailable } from "../tools/sandbox.js";
import { BatchBudget } from "./batch-budget.js";
import { type BatchLog, createBatchLog } from "./batch-log.js";
import { buildCommandEnv } from "./command-env.js";
import type { CliIo } from "./io.js";
import { liveModels, loadPrices, scriptedModels } from "./models.js";
import { nonEmpty, type RunOptions } from "./options.js";
import { prepareOutDir } from "./out-dir.js";
import { selectShard } from "./shard.js";
import { mapWithConcurrency } from "./task-pool.js";

/** A batch's outcome: one summary per task, in task-file order. */
export type BatchResult = { summaries: TaskSummary[]; wallTimeMs: number };

/** Everything validated before the first task starts. */
type Batch = {
  tasks: Task[];
  modelOf: (task: Task) => { name: string; client: ModelClient };
  prices: PriceTable;
  outDir: string;
  baseEnv: Record<string, string>;
  redact: Redactor | undefined;
  /** The first task whose API key was refused (401/403); later tasks are not started. */
  refusedKey?: string;
};

/**
 * `agent-run run`: validate everything first (task files, replies, key, prices, output folder),
 * then run the tasks with bounded concurrency under the batch budget, print the report and write
 * `report.json`. Throws `AgentRunError`s for bad input.
 */
export async function runCommand(
  options: RunOptions,
  io: CliIo,
  signal: AbortSignal,
): Promise<BatchResult> {
  const batch = await prepareBatch(options, io);
  const log = createBatchLog(io, options);
  const budget = new BatchBudget({ maxUsd: options.budgetUsd, maxTokens: options.budgetTokens });
  const startedAt = performance.now();
  const isConcurrent = Math.min(options.concurrency, batch.tasks.length) > 1;
  if (isConcurrent) useSpawnHelpers();
  // One snapshot git dir per concurrent task, kept while the batch runs (see `snapshotGitDir`).
  const scratch = makeSnapshotScratch(batch.outDir);
  const staleRemoved = removeStaleSnapshotScratch(batch.outDir);
  // Side by side, a task's place goes to the next one as soon as its agent stops (see
  // `onSlotFree`) while it writes its changes: each lane alternates between two snapshot git
  // dirs. Not in place, where the next task would change the workspace that one still reads, nor
  // one at a time, whose log streams each task whole.
  const pool = { limit: options.concurrency, isOverlapping: isConcurrent && !options.isInPlace };
  const summaries = await mapWithConcurrency(batch.tasks, pool, (task, slot) =>
    runOne(task, batch, {
      options,
      log,
      budget,
      signal,
      snapshotGitDir: join(
        scratch,
        `lane-${slot.lane}${pool.isOverlapping && slot.turn % 2 === 1 ? "b" : ""}`,
      ),
      isSharingEventLoop: isConcurrent,
      onSlotFree: slot.free,
    }),
  ).finally(async () => {
    const warning = removeSnapshotScratch(scratch);
    if (warning !== undefined) io.writeErr(`agent-run: warning: ${warning}`);
    await staleRemoved;
  });
  const wallTimeMs = performance.now() - startedAt;
  const markdown = await writeBatchReport(batch.outDir, summaries, io.redact);
  io.writeOut(markdown);
  io.writeOut(
    `wall time ${formatDuration(wallTimeMs)}; outputs in ${displayPath(batch.outDir)} (report.json)`,
  );
  await log.finish(summaries, markdown, batch.outDir);
  return { summaries, wallTimeMs };
}

async function prepareBatch(options: RunOptions, io: CliIo): Promise<Batch> {
  const all = (await loadTasks(await expandPatterns(options.patterns))).map((task) =>
    applyOverrides(task, options),
  );
  const tasks = options.shard === undefined ? all : selectShard(all, options.shard);
  if (options.shard !== undefined) {
    io.writeErr(
      `agent-run: shard ${options.shard.index}/${options.shard.count}: ${tasks.length} of ${all.length} tasks`,
    );
  }
  const prices = await loadPrices(options.pricesFile);
  const apiKey = nonEmpty(io.env.ANTHROPIC_API_KEY);
  const clients = options.isOffline
    ? await scriptedModels(tasks)
    : liveModels(tasks.length, apiKey, io.env);
  const nameOf = (task: Task) =>
    options.model ?? task.model ?? nonEmpty(io.env.ANTHROPIC_MODEL) ?? DEFAULT_MODEL;
  refuseUnpricedSpendingCaps(tasks, nameOf, prices, options.budgetUsd !== undefined);
  if (tasks.some((task) => (options.sandbox ?? task.sandbox) === "bwrap")) {
    assertSandboxAvailable("bwrap", io.env.PATH);
  }
  const outDir = resolve(options.outDir);
  for (const warning of await prepareOutDir(outDir, tasks, options))
    io.writeErr(`agent-run: warning: ${warning}`);
  return {
    tasks,
    modelOf: (task) => ({ name: nameOf(task), client: clients(task) }),
    prices,
    outDir,
    baseEnv: buildCommandEnv(io.env, apiKey),
    redact: io.redact,
  };
}

/** Runs one task of the batch (or records it as skipped or not started); never throws. */
async function runOne(
  task: Task,
  batch: Batch,
  context: {
    options: RunOptions;
    log: BatchLog;
    budget: BatchBudget;
    signal: AbortSignal;
    snapshotGitDir: string;
    isSharingEventLoop: boolean;
    onSlotFree: () => void;
  },
): Promise<TaskSummary> {
  const { options, log, budget, signal } = context;
  const model = batch.modelOf(task);
  if (signal.aborted) return notStarted(task, model.name, batch.outDir);
  const spent = budget.exhausted();
  const skipReason =
    batch.refusedKey !== undefined
      ? `not run: the API refused the key in task "${batch.refusedKey}"; check ANTHROPIC_API_KEY`
      : spent === undefined
        ? undefined
        : budget.describe(spent);
  const where = options.isInPlace
    ? `in place in ${task.workspace}`
    : `on a copy in ${displayPath(batch.outDir)}/${task.name}/workspace`;
  log.onTaskStart(
    task.name,
    skipReason === undefined
      ? `${model.name}${options.isOffline ? ", offline" : ""}, ${where}`
      : "skipped",
  );
  const summary = await runTask({
    task,
    modelName: model.name,
    model: model.client,
    outDir: batch.outDir,
    inPlace: options.isInPlace,
    offline: options.isOffline,
    prices: batch.prices,
    baseEnv: batch.baseEnv,
    signal,
    gate: () => budget.exhausted(),
    sandbox: options.sandbox,
    snapshotGitDir: context.snapshotGitDir,
    isSharingEventLoop: context.isSharingEventLoop,
    onSlotFree: context.onSlotFree,
    ...(skipReason === undefined ? {} : { skipReason }),
    onEvent: (event) => {
      if (event.type === "model_reply") {
        budget.record(
          event.reply.usage,
          estimateCostUsd(batch.prices, model.name, event.reply.usage),
        );
      }
      // A refused key fails every task alike: say it once, and start no more tasks.
      if (event.type === "model_error" && (event.status === 401 || event.status === 403))
        batch.refusedKey ??= task.name;
      log.onEvent(task.name, event);
    },
    onCheck: (check) => log.onCheck(task.name, check),
    ...(batch.redact === undefined ? {} : { redact: batch.redact }),
  }).catch((error: unknown) =>
    failed(task, model.name, batch.outDir, `internal error: ${messageOf(error)}`),
  );
  log.onTaskEnd(summary);
  return summary;
}

/** Spending caps need prices: a model without one would never be stopped, so refuse up front. */
function refuseUnpricedSpendingCaps(
  tasks: readonly Task[],
  nameOf: (task: Task) => string,
  prices: PriceTable,
  hasBatchUsdBudget: boolean,
): void {
  const unpriced = tasks.filter(
    (task) =>
      (hasBatchUsdBudget || task.limits.maxCostUsd !== undefined) &&
      findPrice(prices, nameOf(task)) === undefined,
  );
  if (unpriced.length === 0) return;
  const names = unpriced.map((task) => `${task.name} (${nameOf(task)})`).join(", ");
  throw new ConfigError(
    `no price is known for the model of ${names}, so a USD limit (--budget-usd, max_cost_usd) cannot be enforced; add its price with --prices FILE`,
  );
}

/** Expands globs (quoted ones included, for shells that don't); a glob matching nothing is an error. */
async function expandPatterns(patterns: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    if (!/[*?[\]{}]/.test(pattern)) {
      files.push(pattern);
      continue;
    }
    const matches = (await glob(pattern, { onlyFiles: true, expandDirectories: false })).sort();
    if (matches.length === 0)
      throw new ConfigError(`${pattern}: matched no task files; check the path and the quotes`);
    files.push(...matches);
  }
  return files;
}

/** Applies `--max-steps`, `--max-tokens`, `--timeout`, `--max-cost` and `--bash-allow/deny` to every task. */
function applyOverrides(task: Task, options: RunOptions): Task {
  return {
    ...task,
    limits: {
      ...task.limits,
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
    },
    bash: {
      ...task.bash,
      allow: [...task.bash.allow, ...options.bashAllow],
      deny: [...task.bash.deny, ...options.bashDeny],
    },
  };
}

/** A task the batch never started (cancelled first): its earlier outputs, if any, are left alone. */
function notStarted(task: Task, model: string, outDir: string): TaskSummary {
  return { ...failed(task, model, outDir, "cancelled before it started"), status: "cancelled" };
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
    workspace: task.workspace,
    runDir: resolve(outDir, task.name),
    patchFile: null,
    checks: [],
    passed: false,
  };
}

/** A path for the log: relative to the current folder when below it, else absolute. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}
