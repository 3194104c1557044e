import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { ConfigError, messageOf, TaskFileError, type TaskFileProblem } from "../errors.js";
import { createAnthropicModel } from "../model/anthropic.js";
import type { ApiMessage, ModelClient } from "../model/model-client.js";
import { DEFAULT_PRICES, type PriceTable, parsePriceFile } from "../model/pricing.js";
import { effectiveCompat, PROVIDER_PRESETS } from "../model/providers.js";
import { createReplayModel } from "../model/replay-model.js";
import { withoutRecordedReasoning } from "../replay/fork-reasoning.js";
import type { RecordedRun } from "../replay/recorded-run.js";
import { recordedCallsThrough } from "../replay/recorded-steps.js";
import { DEFAULT_MODEL, type Task } from "../task/schema.js";
import { parseDuration } from "../task/schema-fields.js";
import { nonEmpty } from "./flag-values.js";
import { endpointOf, resolveCredentials, settleProvider } from "./provider-setup.js";

/** Gives each task its model client (the model name picks the OpenAI compat defaults). */
export type ModelFactory = (task: Task, modelName: string) => ModelClient;

/** `tool_protocol: text` tasks get their client wrapped; the module loads only when one is in the batch. */
async function textProtocolWrapper(
  tasks: readonly Task[],
): Promise<(task: Task, client: ModelClient) => ModelClient> {
  if (!tasks.some((task) => task.toolProtocol === "text")) return (_task, client) => client;
  const { withTextProtocol } = await import("../model/text-protocol.js");
  return (task, client) => (task.toolProtocol === "text" ? withTextProtocol(client) : client);
}

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
  const { asRepliesOf, loadReplies } = await import("../task/load-replies.js");
  // Every replies file is read before any is refused, so one run lists all their mistakes.
  const byFile = new Map<string, ApiMessage[]>();
  const problems: TaskFileProblem[] = [];
  for (const file of new Set(tasks.flatMap((task) => task.replies ?? []))) {
    try {
      byFile.set(file, await loadReplies(file, relative(process.cwd(), file)));
    } catch (error) {
      if (!(error instanceof TaskFileError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new TaskFileError(problems);
  const replies = new Map(tasks.map((task) => [task.name, byFile.get(task.replies ?? "") ?? []]));
  const wrap = await textProtocolWrapper(tasks);
  return (task, modelName) =>
    wrap(
      task,
      createReplayModel(
        asRepliesOf(replies.get(task.name) ?? [], modelName),
        task.replies ?? task.file,
      ),
    );
}

/**
 * Live: each task's provider, with the credential and base URL agent-run resolved (the SDKs read
 * no environment variable). Tasks on the same endpoint share one client: it keeps no state
 * between requests. The OpenAI client's module loads only when a task uses that API.
 * @throws ConfigError for a missing key, naming each task's file, line and variable.
 */
export async function liveModels(
  tasks: readonly Task[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<ModelFactory> {
  const credentials = resolveCredentials(tasks, env);
  const settings = retrySettings(env);
  const openai = tasks.some((task) => task.provider.api === "openai")
    ? await import("../model/openai/openai-client.js")
    : undefined;
  const wrap = await textProtocolWrapper(tasks);
  const clients = new Map<string, ModelClient>();
  return (task, modelName) => {
    const credential = credentials.get(task) ?? resolveCredentials([task], env).get(task);
    if (credential === undefined) throw new Error(`no credential resolved for task ${task.name}`);
    const { provider } = task;
    const endpoint = endpointOf(provider, credential);
    // Never an SDK's own default host: a key goes only to a URL agent-run resolved.
    if (endpoint.baseURL === "") throw new Error(`no base URL resolved for task ${task.name}`);
    const compat =
      provider.api === "openai" ? effectiveCompat(provider.name, modelName, provider.compat) : {};
    const key = JSON.stringify([provider.api, endpoint, credential, compat]);
    let client = clients.get(key);
    if (client === undefined) {
      if (provider.api === "anthropic") {
        client = createAnthropicModel({
          ...credential,
          baseURL: endpoint.baseURL,
          endpoint,
          ...settings,
        });
      } else {
        if (openai === undefined) throw new Error("the OpenAI client module was not loaded");
        client = openai.createOpenAIClient({
          baseURL: endpoint.baseURL,
          apiKey: credential.apiKey,
          compat: effectiveCompat(provider.name, modelName, provider.compat),
          maxRetries: settings.maxRetries,
          provider: provider.name,
          apiKeyEnv: provider.apiKeyEnv,
        });
      }
      clients.set(key, client);
    }
    return wrap(task, client);
  };
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

/** The model of a task that names none, on the anthropic preset: ANTHROPIC_MODEL, else Claude's default. */
export function defaultModel(env: Readonly<Record<string, string | undefined>>): string {
  return nonEmpty(env.ANTHROPIC_MODEL) ?? DEFAULT_MODEL;
}

/** Another provider has no default model: ANTHROPIC_MODEL or a Claude model would be wrong there. */
export function refuseUnnamedModels(tasks: readonly Task[], flagModel: string | undefined): void {
  if (flagModel !== undefined) return;
  const unnamed = tasks.filter(
    (task) => task.model === undefined && task.provider.name !== "anthropic",
  );
  if (unnamed.length === 0) return;
  throw new ConfigError(
    unnamed
      .map(
        (task) =>
          `${task.file}: task "${task.name}" uses the ${task.provider.name} provider and names no model; add "model:" to it (e.g. model: ${EXAMPLE_MODELS[task.provider.name] ?? "your-model-id"}) or pass --model`,
      )
      .join("\n"),
  );
}

const EXAMPLE_MODELS: Readonly<Record<string, string>> = {
  openai: "gpt-5-mini",
  deepseek: "deepseek-v4-flash",
  openrouter: "openai/gpt-5-mini",
  ollama: "qwen3-coder",
  vllm: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
};

/**
 * The model a fork or resume continues with: the API (the recorded model unless `--model`), or,
 * offline, the task's scripted replies after those the recording serves: its steps 1..`untilStep`
 * and the replies of the subagents they started (the replies file is in call order).
 */
export async function continuationModel(options: {
  recorded: RecordedRun;
  task: Task | undefined;
  untilStep: number;
  isOffline: boolean;
  model: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<{ model: ModelClient; name: string }> {
  const task = options.task ?? options.recorded.task;
  const name = options.model ?? task.model ?? continuedModel(options.recorded, task, options.env);
  const wrap = await textProtocolWrapper([task]);
  if (options.isOffline) {
    if (task.replies === undefined) {
      throw new ConfigError(
        `${options.recorded.path}: the task has no \`replies\` file to continue --offline with`,
      );
    }
    const { asRepliesOf, loadReplies } = await import("../task/load-replies.js");
    const replies = await loadReplies(task.replies, relative(process.cwd(), task.replies));
    const recordedCalls = recordedCallsThrough(options.recorded, options.untilStep);
    const served = asRepliesOf(replies.slice(recordedCalls), name);
    return {
      model: wrap(task, createReplayModel(served, task.replies)),
      name,
    };
  }
  // A recorded task's provider is input: checked, then settled like a task file's (the preset's
  // or the environment's URL where it names none).
  const live =
    options.task === undefined
      ? settleProvider(
          refuseRecordedEndpoint(options.recorded, options.env),
          { provider: undefined, baseURL: undefined },
          options.env,
          false,
        )
      : task;
  const factory = await liveModels([live], options.env);
  const model = factory(live, name);
  // Recorded signed thinking goes back only to the provider that signed it, and only when real:
  // an offline recording's is the replies file's, and steps the recording took from another
  // recording (a fork of a fork) were signed by whoever made that one. On Anthropic's API, blocks
  // another model or prompt invalidates are dropped by the API (the Anthropic client's thinking).
  const { recorded } = options;
  const isSigner = !recorded.isOffline && live.provider.name === recorded.task.provider.name;
  const unsigned = isSigner
    ? Math.min(recorded.inheritedSteps, options.untilStep)
    : options.untilStep;
  return { model: unsigned === 0 ? model : withoutRecordedReasoning(model, unsigned), name };
}

/**
 * The model a fork goes on with when neither `--model` nor the task names one: the recorded one on
 * the recorded provider; on another provider, what a run of the task would use.
 */
function continuedModel(
  recorded: RecordedRun,
  task: Task,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (task.provider.name === recorded.task.provider.name) return recorded.model;
  refuseUnnamedModels([task], undefined);
  return defaultModel(env);
}

/**
 * A key goes only where a task file or a preset says: a transcript edited to name another base
 * URL or key variable would otherwise send the user's key there on a live fork or resume.
 */
function refuseRecordedEndpoint(
  recorded: RecordedRun,
  env: Readonly<Record<string, string | undefined>>,
): Task {
  const { provider } = recorded.task;
  const preset = PROVIDER_PRESETS[provider.name];
  const presetURL = provider.api === preset.api ? preset.baseURL : preset.anthropicBaseURL;
  // The gateway this environment names for the anthropic preset is as trusted as the preset's.
  const envURL = provider.name === "anthropic" ? nonEmpty(env.ANTHROPIC_BASE_URL) : undefined;
  const isPresetAPI = provider.api === preset.api || presetURL !== undefined;
  const isPresetURL =
    presetURL !== undefined &&
    (provider.baseURL === undefined ||
      provider.baseURL === presetURL ||
      provider.baseURL === envURL);
  if (isPresetAPI && isPresetURL && provider.apiKeyEnv === preset.apiKeyEnv) return recorded.task;
  throw new ConfigError(
    `${recorded.path}:1: task.provider: the recorded run used api ${provider.api}, base URL ${provider.baseURL ?? "(none)"} and key variable ${provider.apiKeyEnv ?? "(none)"}, not the ${provider.name} preset's; agent-run sends a key only where a task file says: give the task file with --task to continue it live`,
  );
}
