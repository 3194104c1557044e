import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { createAnthropicModel } from "../model/anthropic.js";
import type { ApiMessage, ModelClient } from "../model/model-client.js";
import { DEFAULT_PRICES, type PriceTable, parsePriceFile } from "../model/pricing.js";
import { createReplayModel } from "../model/replay-model.js";
import type { RecordedRun } from "../replay/recorded-run.js";
import type { Task } from "../task/schema.js";
import { parseDuration } from "../task/schema-fields.js";
import { nonEmpty } from "./flag-values.js";

/** Gives each task its model client. */
export type ModelFactory = (task: Task) => ModelClient;

/** Offline: each task plays its replies file; a task without one is an error before anything runs. */
export async function scriptedModels(tasks: readonly Task[]): Promise<ModelFactory> {
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
  // Only offline runs read replies files: a live run never builds their schemas.
  const { loadReplies } = await import("../task/load-replies.js");
  const replies = new Map<string, ApiMessage[]>();
  for (const task of tasks) {
    if (task.replies !== undefined) {
      replies.set(
        task.name,
        await loadReplies(task.replies, relative(process.cwd(), task.replies)),
      );
    }
  }
  return (task) => createReplayModel(replies.get(task.name) ?? [], task.replies ?? task.file);
}

/**
 * Live: the Messages API with the key (required) and an optional base URL (proxy, gateway). One
 * client serves every task: it keeps no state between requests.
 */
export function liveModels(
  taskCount: number,
  apiKey: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ModelFactory {
  if (apiKey === undefined) {
    throw new ConfigError(
      `ANTHROPIC_API_KEY is not set; export it to run ${taskCount === 1 ? "this task" : `these ${taskCount} tasks`} against the API, or add --offline to play the tasks' scripted replies`,
    );
  }
  const settings = retrySettings(env);
  const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
  const model = createAnthropicModel({
    apiKey,
    baseURL,
    ...settings,
  });
  return () => model;
}

/** `AGENT_RUN_MAX_RETRIES` (default 4) and `AGENT_RUN_RETRY_DELAY` (first wait, default 500ms). */
export function retrySettings(env: Readonly<Record<string, string | undefined>>): {
  maxRetries: number;
  retryBaseDelayMs: number;
} {
  const retries = nonEmpty(env.AGENT_RUN_MAX_RETRIES);
  const maxRetries = retries === undefined ? 4 : Number(retries);
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 20) {
    throw new ConfigError(
      `AGENT_RUN_MAX_RETRIES: expected a whole number from 0 to 20, got ${JSON.stringify(retries)}`,
    );
  }
  const delay = nonEmpty(env.AGENT_RUN_RETRY_DELAY);
  const retryBaseDelayMs =
    delay === undefined
      ? 500
      : (parseDuration(/^\d+(\.\d+)?$/.test(delay) ? Number(delay) : delay) ?? Number.NaN);
  if (!Number.isFinite(retryBaseDelayMs)) {
    throw new ConfigError(
      `AGENT_RUN_RETRY_DELAY: expected a duration such as 500ms or 2s, got ${JSON.stringify(delay)}`,
    );
  }
  return { maxRetries, retryBaseDelayMs };
}

/** The default price table, or it overlaid with a prices file. */
export async function loadPrices(file: string | undefined): Promise<PriceTable> {
  if (file === undefined) return DEFAULT_PRICES;
  let text: string;
  try {
    text = await readFile(resolve(file), "utf8");
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the prices file: ${messageOf(error)}`);
  }
  return parsePriceFile(text, file);
}

/**
 * The model a fork or resume continues with: the API (the recorded model unless `--model`), or,
 * offline, the task's scripted replies from reply `untilStep + 1` on.
 */
export async function continuationModel(options: {
  recorded: RecordedRun;
  task: Task | undefined;
  untilStep: number;
  isOffline: boolean;
  model: string | undefined;
  apiKey: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<{ model: ModelClient; name: string }> {
  const task = options.task ?? options.recorded.task;
  const name = options.model ?? task.model ?? options.recorded.model;
  if (options.isOffline) {
    if (task.replies === undefined) {
      throw new ConfigError(
        `${options.recorded.path}: the task has no \`replies\` file to continue --offline with`,
      );
    }
    const { loadReplies } = await import("../task/load-replies.js");
    const replies = await loadReplies(task.replies, relative(process.cwd(), task.replies));
    return { model: createReplayModel(replies.slice(options.untilStep), task.replies), name };
  }
  const factory = liveModels(1, options.apiKey, options.env);
  return { model: factory(task), name };
}
