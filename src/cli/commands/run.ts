import { resolve } from "node:path";
import { BatchBudget } from "../../batch/batch-budget.js";
import { createBatchLog } from "../../batch/batch-log.js";
import { type Batch, type KeyRefusal, runBatch } from "../../batch/run-batch.js";
import { selectShard } from "../../batch/shard.js";
import { ConfigError } from "../../errors.js";
import { endpointHint } from "../../model/endpoint-hints.js";
import { findPrice, type PriceTable } from "../../model/pricing.js";
import { buildCommandEnv } from "../../process/command-env.js";
import { writeBatchReport } from "../../report/batch-report.js";
import { runDirOf } from "../../report/run-folders.js";
import type { TaskSummary } from "../../report/summary.js";
import { loadTasks } from "../../task/load-task.js";
import type { Task } from "../../task/schema.js";
import { assertSandboxAvailable } from "../../tools/sandbox.js";
import { displayPath, printBatchEnd } from "../batch-end.js";
import { expandPatterns } from "../expand-patterns.js";
import { type CliIo, withMoreSecrets } from "../io.js";
import {
  defaultModel,
  liveModels,
  loadPrices,
  refuseUnnamedModels,
  scriptedModels,
} from "../models.js";
import { prepareOutDir } from "../out-dir.js";
import {
  endpointOf,
  providerSecrets,
  resolveCredentials,
  settleProvider,
} from "../provider-setup.js";
import type { RunOptions } from "../run-flags.js";

/** A batch's outcome: one summary per task, in task-file order. */
export type BatchResult = { summaries: TaskSummary[]; wallTimeMs: number };

/**
 * `agent-run run`: validate everything first (task files, replies, key, prices, output folder),
 * then run the tasks with bounded concurrency under the batch budget, print the report and write
 * `report.json`. Throws `AgentRunError`s for bad input, and a `ConfigError` after the report when
 * the API refused a key (a bad key is a configuration error, as a missing one is).
 */
export async function runCommand(
  options: RunOptions,
  io: CliIo,
  signal: AbortSignal,
): Promise<BatchResult> {
  const prepared = await prepareBatch(options, io);
  // The tasks' key variables are known now: hide their values too, whatever they are named.
  io = withMoreSecrets(io, prepared.keys);
  const batch: Batch = { ...prepared, redact: io.redact };
  // The progress counts runs: each task once, or each of its trials.
  const runCount = batch.tasks.reduce((sum, task) => sum + task.trials, 0);
  const log = createBatchLog(io, { ...options, taskCount: runCount });
  const budget = new BatchBudget({ maxUsd: options.budgetUsd, maxTokens: options.budgetTokens });
  const startedAt = performance.now();
  const { summaries, refusals } = await runBatch(batch, log, budget, signal);
  const wallTimeMs = performance.now() - startedAt;
  const report = await writeBatchReport(batch.outDir, summaries, io.redact);
  printBatchEnd(io, { report, outDir: batch.outDir, wallTimeMs });
  // The log is read as text; the job summary is rendered, so only it is escaped as Markdown.
  await log.onBatchEnd(summaries, report, batch.outDir);
  if (refusals.length > 0) {
    throw new ConfigError(
      refusals.map((refusal) => describeRefusal(refusal, io.env)).join("; and "),
    );
  }
  return { summaries, wallTimeMs };
}

/** One refused key, naming the variable and the URL it was sent to (the client's own hint). */
function describeRefusal(refusal: KeyRefusal, env: Record<string, string | undefined>): string {
  const { task, status, notRunCount } = refusal;
  // The run had its key, so this finds it again, naming ANTHROPIC_AUTH_TOKEN when that was sent.
  const credentials = resolveCredentials([task], env).get(task) ?? {
    apiKey: undefined,
    authToken: undefined,
  };
  const endpoint = endpointOf(task.provider, credentials);
  const notRun =
    notRunCount === 0
      ? ""
      : `, so ${notRunCount} more ${notRunCount === 1 ? "task" : "tasks"} using it ${notRunCount === 1 ? "was" : "were"} not run`;
  // A 401 and a 403 get the same hint; an authentication error without a status is one of them.
  const hint = endpointHint(endpoint, { kind: "status", status: status ?? 401 });
  return `the API refused the key${status === null ? "" : ` (${status})`} in task "${task.name}"${notRun}${hint}`;
}

async function prepareBatch(options: RunOptions, io: CliIo): Promise<Batch & { keys: string[] }> {
  const files = await expandPatterns(options.patterns, "task files");
  const all = (await loadTasks(files)).map((task) =>
    settleProvider(applyOverrides(task, options), options, io.env, options.isOffline),
  );
  // A task's trials stay together: the shard picks tasks, and each runs all its trials.
  const tasks = options.shard === undefined ? all : selectShard(all, options.shard);
  refuseInPlaceRepeats(tasks, options);
  if (options.shard !== undefined) {
    io.writeErr(
      `agent-run: shard ${options.shard.index}/${options.shard.count}: ${tasks.length} of ${all.length} tasks`,
    );
  }
  const prices = await loadPrices(options.pricesFile);
  const keys = providerSecrets(tasks, io.env);
  const clients = options.isOffline ? await scriptedModels(tasks) : await liveModels(tasks, io.env);
  refuseUnnamedModels(tasks, options.model);
  const nameOf = (task: Task) => options.model ?? task.model ?? defaultModel(io.env);
  refuseUnpricedSpendingCaps(tasks, nameOf, prices, options.budgetUsd !== undefined);
  if (tasks.some((task) => (options.sandbox ?? task.sandbox) === "bwrap")) {
    assertSandboxAvailable("bwrap", io.env.PATH);
  }
  const outDir = resolve(options.outDir);
  for (const warning of await prepareOutDir(outDir, tasks, options))
    io.writeErr(`agent-run: warning: ${warning}`);
  return {
    tasks,
    modelOf: (task) => ({ name: nameOf(task), client: clients(task, nameOf(task)) }),
    prices,
    outDir,
    baseEnv: buildCommandEnv(io.env, keys),
    keys,
    redact: io.redact,
    concurrency: options.concurrency,
    isInPlace: options.isInPlace,
    isOffline: options.isOffline,
    sandbox: options.sandbox,
    describeWorkspace: (task, trial) =>
      options.isInPlace
        ? `in place in ${task.workspace}`
        : `on a copy in ${displayPath(runDirOf(outDir, task.name, trial))}/workspace`,
    retryErrors: options.retryErrors,
  };
}

/**
 * In place, a run starts from the files the one before it left: trials would not be alike, and an
 * attempt that failed may have changed the files its retry starts from. Both need a copy each.
 */
function refuseInPlaceRepeats(tasks: readonly Task[], options: RunOptions): void {
  if (!options.isInPlace) return;
  const repeated = tasks.find((task) => task.trials > 1);
  if (repeated !== undefined) {
    const source =
      options.trials === undefined
        ? `${repeated.file}: trials: ${repeated.trials}`
        : `--trials ${options.trials}`;
    throw new ConfigError(
      `${source} with --in-place: each trial would start from the files the one before it changed; trials need a fresh copy of the workspace each, so drop --in-place`,
    );
  }
  if (options.retryErrors > 0) {
    throw new ConfigError(
      `--retry-errors with --in-place: an attempt that failed may have changed the workspace, so the next would not start from the same files; drop --in-place (or --retry-errors)`,
    );
  }
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
      findPrice(prices, { provider: task.provider.name, model: nameOf(task) }) === undefined,
  );
  if (unpriced.length === 0) return;
  const names = unpriced.map((task) => `${task.name} (${nameOf(task)})`).join(", ");
  throw new ConfigError(
    `no price is known for the model of ${names}, so a USD limit (--budget-usd, max_cost_usd) cannot be enforced; add its price with --prices FILE`,
  );
}

/** Applies `--max-steps`, `--max-tokens`, `--timeout`, `--max-cost`, `--bash-allow/deny` and `--trials` to every task. */
function applyOverrides(task: Task, options: RunOptions): Task {
  return {
    ...task,
    trials: options.trials ?? task.trials,
    limits: {
      ...task.limits,
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
    },
    bash: {
      ...task.bash,
      flagAllow: [...task.bash.flagAllow, ...options.bashAllow],
      flagDeny: [...task.bash.flagDeny, ...options.bashDeny],
    },
  };
}
