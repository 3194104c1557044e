import { constants } from "node:fs";
import { access, mkdir, readdir, readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { ConfigError } from "../errors.js";
import { createAnthropicModel } from "../model/anthropic.js";
import type { ModelClient } from "../model/model-client.js";
import { DEFAULT_PRICES, type PriceTable, parsePriceFile } from "../model/pricing.js";
import { createReplayModel } from "../model/replay-model.js";
import { loadReplies } from "../model/replies.js";
import { createProgressReporter } from "../report/progress.js";
import type { TaskSummary } from "../report/summary.js";
import { formatSummaryTable } from "../report/summary-table.js";
import { runTask } from "../run-task.js";
import { loadTasks } from "../task/load-task.js";
import { DEFAULT_MODEL, type Task } from "../task/schema.js";
import { buildCommandEnv } from "./command-env.js";
import type { CliIo } from "./io.js";
import type { RunOptions } from "./options.js";

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
  const files = await expandPatterns(options.patterns, io.cwd);
  const tasks = (await loadTasks(files)).map((task) => applyOverrides(task, options));
  const prices = await loadPrices(options.pricesFile, io.cwd);
  const apiKey = nonEmpty(io.env.ANTHROPIC_API_KEY);
  const models = options.isOffline
    ? await scriptedModels(tasks)
    : liveModels(tasks, apiKey, io.env);
  const outDir = resolve(io.cwd, options.outDir);
  await prepareOutDir(outDir, tasks, options);

  const progress = createProgressReporter({
    write: io.writeErr,
    isColor: io.isColor,
    isVerbose: options.isVerbose,
  });
  const baseEnv = buildCommandEnv(io.env, apiKey);
  const startedAt = performance.now();
  const summaries = await mapWithConcurrency(tasks, options.concurrency, async (task) => {
    const modelName = modelFor(task, options, io.env);
    const where = options.isInPlace
      ? `in place in ${task.workspace}`
      : `on a copy in ${relative(io.cwd, outDir) || "."}/${task.name}/workspace`;
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
    });
    progress.onTaskEnd(summary);
    return summary;
  });
  const wallTimeMs = performance.now() - startedAt;
  io.writeOut(formatSummaryTable(summaries, wallTimeMs));
  io.writeOut(`outputs: ${relative(io.cwd, outDir) || "."}`);
  return { summaries, wallTimeMs };
}

/** Expands globs (quoted ones included) into files; a pattern matching nothing is an error. */
async function expandPatterns(patterns: readonly string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of patterns) {
    const isGlob = /[*?[\]{}]/.test(pattern);
    if (!isGlob) {
      files.push(pattern);
      continue;
    }
    const matches = (
      await glob(pattern, { cwd, onlyFiles: true, expandDirectories: false })
    ).sort();
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

/** `--model`, then the task's `model`, then `ANTHROPIC_MODEL`, then the built-in default. */
function modelFor(task: Task, options: RunOptions, env: CliIo["env"]): string {
  return options.model ?? task.model ?? nonEmpty(env.ANTHROPIC_MODEL) ?? DEFAULT_MODEL;
}

/** Offline: each task plays its replies file; a task without one is an error before anything runs. */
async function scriptedModels(tasks: readonly Task[]): Promise<(task: Task) => ModelClient> {
  const missing = tasks.filter((task) => task.replies === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      missing
        .map(
          (task) =>
            `${task.file}: task "${task.name}" has no \`replies\` file, so it cannot run --offline; add \`replies: <file>\` to it or run without --offline`,
        )
        .join("\n"),
    );
  }
  const replies = new Map<string, Awaited<ReturnType<typeof loadReplies>>>();
  for (const task of tasks) {
    if (task.replies !== undefined)
      replies.set(
        task.name,
        await loadReplies(task.replies, relative(process.cwd(), task.replies)),
      );
  }
  return (task) => createReplayModel(replies.get(task.name) ?? [], task.replies ?? task.file);
}

function liveModels(
  tasks: readonly Task[],
  apiKey: string | undefined,
  env: CliIo["env"],
): (task: Task) => ModelClient {
  if (apiKey === undefined) {
    throw new ConfigError(
      `ANTHROPIC_API_KEY is not set; export it to run ${tasks.length === 1 ? "this task" : `these ${tasks.length} tasks`} against the API, or add --offline to play the tasks' scripted replies`,
    );
  }
  const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
  return () => createAnthropicModel({ apiKey, baseURL });
}

async function loadPrices(file: string | undefined, cwd: string): Promise<PriceTable> {
  if (file === undefined) return DEFAULT_PRICES;
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the prices file: ${(error as Error).message}`);
  }
  return parsePriceFile(text, file);
}

/**
 * Creates the output folder. Refuses, before anything runs: an --out inside a task's workspace
 * (the copy would nest), a task folder that exists but is not an earlier run's (it would be
 * replaced), and --in-place tasks sharing a workspace at --concurrency above 1.
 */
async function prepareOutDir(
  outDir: string,
  tasks: readonly Task[],
  options: RunOptions,
): Promise<void> {
  for (const task of tasks) {
    const rel = relative(task.workspace, outDir);
    if (!options.isInPlace && (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel)))) {
      throw new ConfigError(
        `--out ${outDir} is inside the workspace of task "${task.name}" (${task.workspace}); choose an output folder outside it`,
      );
    }
    const runDir = join(outDir, task.name);
    if (!(await isReplaceable(runDir))) {
      throw new ConfigError(
        `${runDir} exists and is not an agent-run output folder, so it will not be replaced; choose another --out or remove it`,
      );
    }
  }
  if (options.isInPlace && options.concurrency > 1) {
    const seen = new Map<string, string>();
    for (const task of tasks) {
      const other = seen.get(task.workspace);
      if (other !== undefined) {
        throw new ConfigError(
          `tasks "${other}" and "${task.name}" both work in place in ${task.workspace}; run them one at a time with --concurrency 1`,
        );
      }
      seen.set(task.workspace, task.name);
    }
  }
  try {
    await mkdir(outDir, { recursive: true });
    await access(outDir, constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `cannot write to the output folder ${outDir}: ${(error as Error).message}; choose another with --out`,
    );
  }
}

/** A task folder may be replaced when it is missing, empty, or holds an earlier run's outputs. */
async function isReplaceable(runDir: string): Promise<boolean> {
  const entries = await readdir(runDir).catch(() => undefined);
  if (entries === undefined || entries.length === 0) return true;
  return entries.includes("transcript.jsonl") || entries.includes("summary.json");
}

/** Runs `work` over `items` with at most `limit` at once, keeping the input order in the result. */
async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      const item = items[index];
      if (item !== undefined) results[index] = await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
