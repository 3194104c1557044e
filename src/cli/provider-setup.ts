import { ConfigError } from "../errors.js";
import type { Endpoint } from "../model/endpoint-hints.js";
import { PROVIDER_PRESETS, type ProviderName } from "../model/providers.js";
import { baseUrlProblem } from "../task/provider-schema.js";
import { budgetApiProblem } from "../task/resolve-reasoning.js";
import type { ProviderSettings, Task } from "../task/schema.js";
import { FILE_START } from "../task/yaml-locator.js";
import { nonEmpty } from "./flag-values.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `--provider` and `--base-url`, validated. */
export type ProviderFlags = { provider: ProviderName | undefined; baseURL: string | undefined };

/**
 * Applies `--provider` and `--base-url` to a task, then fills in what its preset gives: the base
 * URL (for Anthropic, `ANTHROPIC_BASE_URL` when set) and the key variable. The result is what
 * the run uses and the init line records. `--provider` naming another preset replaces the task's
 * whole `provider:` section. Offline, a missing base URL is no error: nothing is sent.
 * @throws ConfigError when a live task has no base URL or `ANTHROPIC_BASE_URL` is not a URL.
 */
export function settleProvider(
  task: Task,
  flags: ProviderFlags,
  env: Env,
  isOffline: boolean,
): Task {
  let provider = task.provider;
  if (flags.provider !== undefined && flags.provider !== provider.name) {
    provider = {
      name: flags.provider,
      api: PROVIDER_PRESETS[flags.provider].api,
      baseURL: undefined,
      apiKeyEnv: undefined,
      compat: {},
      origin: `--provider ${flags.provider}`,
    };
  }
  const budgetProblem = budgetApiProblem(task.reasoning, provider.api);
  if (budgetProblem !== undefined) {
    throw new ConfigError(
      `${task.file}: reasoning.budget_tokens with ${originOf(task, provider)}: ${budgetProblem}`,
    );
  }
  const preset = PROVIDER_PRESETS[provider.name];
  const presetURL = provider.api === preset.api ? preset.baseURL : preset.anthropicBaseURL;
  const baseURL = flags.baseURL ?? provider.baseURL ?? envBaseURL(provider, env) ?? presetURL;
  if (baseURL === undefined && !isOffline) {
    throw new ConfigError(
      `${originOf(task, provider)}: the ${provider.name} provider has no base URL for api: ${provider.api}; add provider.base_url (e.g. http://localhost:8080/v1) or pass --base-url URL`,
    );
  }
  const settled: ProviderSettings = {
    ...provider,
    baseURL: baseURL?.replace(/\/+$/, ""),
    apiKeyEnv: provider.apiKeyEnv ?? preset.apiKeyEnv,
  };
  return { ...task, provider: settled };
}

/** `ANTHROPIC_BASE_URL`, read by agent-run (never by the SDK), for the anthropic preset only. */
function envBaseURL(provider: ProviderSettings, env: Env): string | undefined {
  if (provider.name !== "anthropic" || provider.api !== "anthropic") return undefined;
  const value = nonEmpty(env.ANTHROPIC_BASE_URL);
  const problem = value === undefined ? undefined : baseUrlProblem(value);
  if (problem !== undefined) throw new ConfigError(`ANTHROPIC_BASE_URL: ${problem}`);
  return value;
}

function originOf(task: Task, provider: ProviderSettings): string {
  return provider.origin ?? task.file;
}

/** The credential a live run sends: the key variable's value, else (Messages API) a Bearer token. */
export type Credentials = { apiKey: string | undefined; authToken: string | undefined };

/**
 * Each task's credential, read from the variable its provider names. A missing key that the
 * preset needs, or that the task named, is an error for every such task at once, before anything
 * runs.
 * @throws ConfigError naming each task's file, line and variable.
 */
export function resolveCredentials(tasks: readonly Task[], env: Env): Map<Task, Credentials> {
  const missing = missingKeyTasks(tasks, env);
  if (missing.length > 0) throw new ConfigError(missingKeyMessage(missing));
  return new Map(tasks.map((task) => [task, credentialsOf(task, env)]));
}

/**
 * The tasks that need a key (their preset's, or one the task named) and find it unset in `env`
 * (nor, for the anthropic preset, `ANTHROPIC_AUTH_TOKEN`).
 */
export function missingKeyTasks(tasks: readonly Task[], env: Env): Task[] {
  return tasks.filter((task) => {
    const { name, apiKeyEnv } = task.provider;
    const { apiKey, authToken } = credentialsOf(task, env);
    const preset = PROVIDER_PRESETS[name];
    const isRequired = preset.isKeyRequired || apiKeyEnv !== preset.apiKeyEnv;
    return isRequired && apiKeyEnv !== undefined && apiKey === undefined && authToken === undefined;
  });
}

function credentialsOf(task: Task, env: Env): Credentials {
  const { name, api, apiKeyEnv } = task.provider;
  const apiKey = apiKeyEnv === undefined ? undefined : nonEmpty(env[apiKeyEnv]);
  // Anthropic's own variable goes only to the anthropic preset's endpoint, never to another's.
  const authToken =
    name === "anthropic" && api === "anthropic" && apiKey === undefined
      ? nonEmpty(env.ANTHROPIC_AUTH_TOKEN)
      : undefined;
  return { apiKey, authToken };
}

/** One line per task, located like a task-file problem; a count first when there are several. */
function missingKeyMessage(tasks: readonly Task[]): string {
  const lines = tasks.map(missingKeyLine);
  if (lines.length === 1) return lines.join("");
  return [`${lines.length} tasks have no API key set; nothing was run`, ...lines].join("\n");
}

function missingKeyLine(task: Task): string {
  const { name, api, apiKeyEnv, baseURL, origin } = task.provider;
  // A preset taken by default or from --provider has no line of its own: the file's start stands in.
  const where =
    origin !== undefined && !origin.startsWith("--")
      ? origin
      : `${task.file}:${FILE_START.line}:${FILE_START.column}${origin === undefined ? "" : `: ${origin}`}`;
  const alternative =
    name === "anthropic" && api === "anthropic"
      ? " (or ANTHROPIC_AUTH_TOKEN, for a gateway that takes a Bearer token)"
      : "";
  return `${where}: ${apiKeyEnv} is not set; export it${alternative} to run task "${task.name}" against ${baseURL ?? "the API"}, or add --offline to play the task's scripted replies`;
}

/** The endpoint as hints name it. */
export function endpointOf(provider: ProviderSettings, credentials: Credentials): Endpoint {
  return {
    provider: provider.name,
    baseURL: provider.baseURL ?? "",
    apiKeyEnv:
      credentials.apiKey === undefined && credentials.authToken !== undefined
        ? "ANTHROPIC_AUTH_TOKEN"
        : provider.apiKeyEnv,
  };
}

/**
 * Every key value the tasks may use, whether or not the run is live: redaction hides them and
 * the commands' environment drops any variable holding one.
 */
export function providerSecrets(tasks: readonly Task[], env: Env): string[] {
  const names = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
  for (const task of tasks)
    if (task.provider.apiKeyEnv !== undefined) names.add(task.provider.apiKeyEnv);
  return [...names].flatMap((name) => {
    const value = nonEmpty(env[name]);
    return value === undefined ? [] : [value];
  });
}
