import { forecastBatch } from "../../batch/forecast.js";
import type { Task } from "../../task/schema.js";
import { loadBatchTasks, plannedTasks, refuseOverBudget } from "../batch-tasks.js";
import { EXIT } from "../exit-codes.js";
import { formatForecast } from "../forecast-text.js";
import { readHistory } from "../history.js";
import type { CliIo } from "../io.js";
import { scriptedModels } from "../models.js";
import { missingKeyTasks } from "../provider-setup.js";
import type { RunOptions } from "../run-flags.js";

/**
 * `agent-run plan` (and `run --dry-run`): validates the batch as `run` does before it starts
 * (task files, flags, shard, prices, offline replies files), prints the forecast on stdout, and
 * runs nothing. With `--refuse-over-budget`, a worst case over a budget is a `ConfigError`
 * (exit 2) after the forecast. What belongs to the machine that runs the tasks is only warned
 * about (a missing API key) or not checked (bubblewrap, the output folder).
 */
export async function planCommand(options: RunOptions, io: CliIo): Promise<number> {
  const batch = await loadBatchTasks(options, io);
  if (options.isOffline) await scriptedModels(batch.tasks);
  else warnAboutKeys(batch.tasks, io);
  const history = await readHistory(options.historyPatterns);
  const forecast = forecastBatch(plannedTasks(batch), history, options.concurrency);
  io.writeOut(
    formatForecast(forecast, {
      hasHistory: options.historyPatterns.length > 0,
      concurrency: options.concurrency,
      budget: { maxUsd: options.budgetUsd, maxTokens: options.budgetTokens },
    }),
  );
  refuseOverBudget(forecast, options);
  return EXIT.ok;
}

/** A key missing here is no error in a plan (the run may happen elsewhere), but worth saying. */
function warnAboutKeys(tasks: readonly Task[], io: CliIo): void {
  const missing = missingKeyTasks(tasks, io.env);
  if (missing.length === 0) return;
  const names = [...new Set(missing.map((task) => task.provider.apiKeyEnv ?? "its API key"))];
  io.writeErr(
    `agent-run: warning: ${names.join(", ")} not set here, so a run of ${missing.length} of these tasks on this machine would not start`,
  );
}
