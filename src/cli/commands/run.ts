import { lstat, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BatchBudget } from "../../batch/batch-budget.js";
import { createBatchLog } from "../../batch/batch-log.js";
import { forecastBatch } from "../../batch/forecast.js";
import { type Batch, type KeyRefusal, runBatch } from "../../batch/run-batch.js";
import { ConfigError } from "../../errors.js";
import { formatBytes } from "../../format.js";
import { endpointHint } from "../../model/endpoint-hints.js";
import { buildCommandEnv } from "../../process/command-env.js";
import { writeBatchReport } from "../../report/batch-report.js";
import { runDirOf } from "../../report/run-folders.js";
import type { TaskSummary } from "../../report/summary.js";
import { assertSandboxAvailable } from "../../tools/sandbox.js";
import { VIEW_FILE } from "../../view/view-file.js";
import { displayPath, printBatchEnd } from "../batch-end.js";
import { loadBatchTasks, plannedTasks, refuseOverBudget } from "../batch-tasks.js";
import { type CliIo, withMoreSecrets } from "../io.js";
import { liveModels, scriptedModels } from "../models.js";
import { prepareOutDir } from "../out-dir.js";
import { endpointOf, providerSecrets, resolveCredentials } from "../provider-setup.js";
import type { RunOptions } from "../run-flags.js";
import { viewOptions } from "../view-options.js";

/** A batch's outcome: one summary per task, in task-file order. */
export type BatchResult = { summaries: TaskSummary[]; wallTimeMs: number };

/**
 * `agent-run run`: validate everything first (task files, replies, key, prices, output folder,
 * and with `--refuse-over-budget` the worst case against the budgets), then run the tasks with bounded concurrency under the batch budget, print the report and write
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
  const viewFile = options.hasView ? join(batch.outDir, VIEW_FILE) : undefined;
  // An earlier batch's viewer must not outlive this batch's start (as report.json does not).
  if (viewFile !== undefined) await removeEarlierViewer(viewFile);
  const { summaries, refusals } = await runBatch(batch, log, budget, signal);
  const wallTimeMs = performance.now() - startedAt;
  const report = await writeBatchReport(batch.outDir, summaries, io.redact);
  printBatchEnd(io, { report, outDir: batch.outDir, wallTimeMs });
  if (viewFile !== undefined) await writeBatchViewer(viewFile, summaries, io);
  // The log is read as text; the job summary is rendered, so only it is escaped as Markdown.
  await log.onBatchEnd(summaries, report, batch.outDir, viewFile);
  if (refusals.length > 0) {
    throw new ConfigError(
      refusals.map((refusal) => describeRefusal(refusal, io.env)).join("; and "),
    );
  }
  return { summaries, wallTimeMs };
}

/** Removes an earlier batch's `view.html`; a folder in its place is not agent-run's to remove. */
async function removeEarlierViewer(file: string): Promise<void> {
  const isFolder = await lstat(file).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (isFolder) {
    throw new ConfigError(
      `--view: ${file} is a folder, where the viewer goes; move it, or give another --out`,
    );
  }
  await rm(file, { force: true });
}

/**
 * `--view`: the viewer of this batch's runs (not of other folders in `--out`), and its size on
 * stdout. Its code loads only then: a batch without `--view` does not parse it.
 */
async function writeBatchViewer(
  file: string,
  summaries: readonly TaskSummary[],
  io: CliIo,
): Promise<void> {
  const { loadBatchPage } = await import("../../view/load-view.js");
  const { writeViewFile } = await import("../../view/write-view.js");
  const page = await loadBatchPage(
    summaries.map((summary) => summary.runDir),
    viewOptions(io),
  );
  const bytes = await writeViewFile(file, page, "--view");
  io.writeOut(`run viewer in ${displayPath(file)} (${formatBytes(bytes)}); open it in a browser`);
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
  const batchTasks = await loadBatchTasks(options, io);
  const { tasks, prices, modelOf: nameOf } = batchTasks;
  if (options.isOverBudgetRefused) {
    refuseOverBudget(forecastBatch(plannedTasks(batchTasks), [], 1), options);
  }
  const keys = providerSecrets(tasks, io.env);
  const clients = options.isOffline ? await scriptedModels(tasks) : await liveModels(tasks, io.env);
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
