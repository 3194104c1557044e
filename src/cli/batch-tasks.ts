import type { Forecast, PlannedTask } from "../batch/forecast.js";
import { selectShard } from "../batch/shard.js";
import { ConfigError } from "../errors.js";
import { findPrice, type PriceTable } from "../model/pricing.js";
import { loadTasks } from "../task/load-task.js";
import type { Task } from "../task/schema.js";
import { expandPatterns } from "./expand-patterns.js";
import { budgetOverrun } from "./forecast-text.js";
import type { CliIo } from "./io.js";
import { defaultModel, loadPrices, refuseUnnamedModels } from "./models.js";
import { settleProvider } from "./provider-setup.js";
import type { RunOptions } from "./run-flags.js";

/**
 * A batch as `run`, `plan` and `list` see it before anything runs: the tasks of the command line
 * (validated, with the flags applied, the shard picked), their prices, and each task's model.
 */
export type BatchTasks = {
  tasks: Task[];
  prices: PriceTable;
  modelOf: (task: Task) => string;
  /** The most attempts one trial can take: 1, and one more for each `--retry-errors`. */
  maxAttempts: number;
};

/**
 * Loads and checks a batch's tasks: the task files, the flags that override them, the shard, the
 * prices file, each task's model, and the prices USD limits need. Writes the shard's line to
 * stderr. Throws `TaskFileError`/`ConfigError` (exit 2) before anything runs.
 */
export async function loadBatchTasks(options: RunOptions, io: CliIo): Promise<BatchTasks> {
  const files = await expandPatterns(options.patterns, "task files");
  const all = (await loadTasks(files)).map((task) =>
    settleProvider(applyOverrides(task, options), options, io.env, options.isOffline),
  );
  const { shard } = options;
  // A task's trials stay together: the shard picks tasks, and each runs all its trials.
  const tasks = shard === undefined ? all : selectShard(all, shard);
  refuseInPlaceRepeats(tasks, options);
  if (shard !== undefined) {
    const from = shard.from === undefined ? "" : ` (${shard.from})`;
    io.writeErr(
      `agent-run: shard ${shard.index}/${shard.count}${from}: ${tasks.length} of ${all.length} tasks`,
    );
  }
  const prices = await loadPrices(options.pricesFile);
  refuseUnnamedModels(tasks, options.model);
  const modelOf = (task: Task) => options.model ?? task.model ?? defaultModel(io.env);
  refuseUnpricedSpendingCaps(tasks, modelOf, prices, options.budgetUsd !== undefined);
  return { tasks, prices, modelOf, maxAttempts: 1 + options.retryErrors };
}

/** What the forecast needs of each task of the batch. */
export function plannedTasks(batch: BatchTasks): PlannedTask[] {
  return batch.tasks.map((task) => ({
    name: task.name,
    model: batch.modelOf(task),
    limits: task.limits,
    price: findPrice(batch.prices, { provider: task.provider.name, model: batch.modelOf(task) }),
    runs: task.trials,
    maxAttempts: batch.maxAttempts,
  }));
}

/**
 * `--refuse-over-budget`: refuses (exit 2) a batch whose worst case exceeds `--budget-usd` or
 * `--budget-tokens`, naming its dearest tasks.
 */
export function refuseOverBudget(forecast: Forecast, options: RunOptions): void {
  if (!options.isOverBudgetRefused) return;
  const overrun = budgetOverrun(forecast, {
    maxUsd: options.budgetUsd,
    maxTokens: options.budgetTokens,
  });
  if (overrun === undefined) return;
  const caps = [
    ...(overrun.usd ? ["max_cost_usd caps a run's spend"] : []),
    ...(overrun.tokens ? ["max_tokens its tokens"] : []),
  ].join(", ");
  throw new ConfigError(
    `${overrun.message}; not started (--refuse-over-budget): lower the tasks' limits (${caps}) or raise the budget`,
  );
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
