import { relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { ConfigError, messageOf } from "../errors.js";
import { ZERO_USAGE } from "../model/model-client.js";
import { writeBatchReport } from "../report/batch-report.js";
import { formatDuration } from "../report/format.js";
import { createProgressReporter } from "../report/progress.js";
import type { TaskSummary } from "../report/summary.js";
import { runTask } from "../run-task.js";
import { loadTasks } from "../task/load-task.js";
import { DEFAULT_MODEL, type Task } from "../task/schema.js";
import { buildCommandEnv } from "./command-env.js";
import type { CliIo } from "./io.js";
import { liveModels, loadPrices, scriptedModels } from "./models.js";
import { nonEmpty, type RunOptions } from "./options.js";
import { prepareOutDir } from "./out-dir.js";

/** A batch's outcome: one summary per task, in task-file order. */
export type BatchResult = { summaries: TaskSummary[]; wallTimeMs: number };

/**
 * `agent-run run`: validate everything first (task files, replies, key, output folder), then run
 * the tasks with bounded concurrency and print the table. Throws `AgentRunError`s for bad input.
 */
export async function runCommand(
  options: RunOptions,
  io: CliIo,
  signal: AbortSignal,
): Promise<BatchResult> {
  const tasks = (await loadTasks(await expandPatterns(options.patterns))).map((task) =>
    applyOverrides(task, options),
  );
  const prices = await loadPrices(options.pricesFile);
  const apiKey = nonEmpty(io.env.ANTHROPIC_API_KEY);
  const models = options.isOffline
    ? await scriptedModels(tasks)
    : liveModels(tasks.length, apiKey, nonEmpty(io.env.ANTHROPIC_BASE_URL));
  const outDir = resolve(options.outDir);
  for (const warning of await prepareOutDir(outDir, tasks, options))
    io.writeErr(`agent-run: warning: ${warning}`);

  const progress = createProgressReporter({
    write: io.writeErr,
    isColor: io.isColor,
    isVerbose: options.isVerbose,
  });
  const baseEnv = buildCommandEnv(io.env, apiKey);
  const startedAt = performance.now();
  const summaries = await mapWithConcurrency(tasks, options.concurrency, async (task) => {
    const modelName =
      options.model ?? task.model ?? nonEmpty(io.env.ANTHROPIC_MODEL) ?? DEFAULT_MODEL;
    if (signal.aborted) return notStarted(task, modelName, outDir);
    const where = options.isInPlace
      ? `in place in ${task.workspace}`
      : `on a copy in ${displayPath(outDir)}/${task.name}/workspace`;
    progress.onTaskStart(
      task.name,
      `${modelName}${options.isOffline ? ", offline" : ""}, ${where}`,
    );
    const summary = await runTask({
      task,
      modelName,
      model: models(task),
      outDir,
      inPlace: options.isInPlace,
      offline: options.isOffline,
      prices,
      baseEnv,
      signal,
      onEvent: (event) => progress.onEvent(task.name, event),
      onCheck: (check) => progress.onCheck(task.name, check),
    }).catch((error: unknown) =>
      failed(task, modelName, outDir, `internal error: ${messageOf(error)}`),
    );
    progress.onTaskEnd(summary);
    return summary;
  });
  const wallTimeMs = performance.now() - startedAt;
  io.writeOut(await writeBatchReport(outDir, summaries));
  io.writeOut(
    `wall time ${formatDuration(wallTimeMs)}; outputs in ${displayPath(outDir)} (report.json)`,
  );
  return { summaries, wallTimeMs };
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

/** Applies `--max-steps`, `--max-tokens` and `--timeout` to every task. */
function applyOverrides(task: Task, options: RunOptions): Task {
  return {
    ...task,
    limits: {
      ...task.limits,
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
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

/** Runs `work` over `items` with at most `limit` at once, keeping the input order in the result. */
async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      const item = items[index];
      if (item !== undefined) results[index] = await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
