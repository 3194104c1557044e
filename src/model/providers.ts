import { DEFAULT_OPENAI_COMPAT, type OpenAICompat } from "./openai/compat.js";

/** The wire format a provider speaks. */
export type ProviderApi = "anthropic" | "openai";

/** The preset names a task's `provider.name` (or `--provider`) may use, the default first. */
export const PROVIDER_NAMES = [
  "anthropic",
  "openai",
  "deepseek",
  "openrouter",
  "ollama",
  "vllm",
  "openai-compatible",
] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** What a preset fills in. `baseURL` undefined: the task (or `--base-url`) must give one. */
export type ProviderPreset = {
  api: ProviderApi;
  baseURL: string | undefined;
  /** The variable holding the key when the task names none; undefined: no key by default. */
  apiKeyEnv: string | undefined;
  /** Whether a run against it fails without a key (local servers take none). */
  isKeyRequired: boolean;
  /** Its Messages-API endpoint, for `api: anthropic` (DeepSeek's /anthropic, Ollama 0.14+). */
  anthropicBaseURL?: string;
};

/** The one table of presets; README's Providers table mirrors it. */
export const PROVIDER_PRESETS: Readonly<Record<ProviderName, ProviderPreset>> = {
  anthropic: {
    api: "anthropic",
    baseURL: "https://api.anthropic.com",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    isKeyRequired: true,
  },
  openai: {
    api: "openai",
    baseURL: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    isKeyRequired: true,
  },
  deepseek: {
    api: "openai",
    baseURL: "https://api.deepseek.com",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    isKeyRequired: true,
    anthropicBaseURL: "https://api.deepseek.com/anthropic",
  },
  openrouter: {
    api: "openai",
    baseURL: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    isKeyRequired: true,
  },
  ollama: {
    api: "openai",
    baseURL: "http://localhost:11434/v1",
    apiKeyEnv: undefined,
    isKeyRequired: false,
    anthropicBaseURL: "http://localhost:11434",
  },
  vllm: {
    api: "openai",
    baseURL: "http://localhost:8000/v1",
    apiKeyEnv: undefined,
    isKeyRequired: false,
  },
  "openai-compatible": {
    api: "openai",
    baseURL: undefined,
    apiKeyEnv: undefined,
    isKeyRequired: false,
  },
};

/** Whether `name` is a preset (for a name read from a flag or a transcript). */
export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** OpenAI's reasoning models (o1, o3, o4-mini...): the system prompt goes as role "developer". */
const OPENAI_REASONING_MODEL = /^o\d/;
/** Models that take `max_completion_tokens` (and refuse `max_tokens`): o-series and gpt-5. */
const OPENAI_COMPLETION_TOKENS_MODEL = /^(o\d|gpt-5)/;
/**
 * DeepSeek's V4 models think by default, and in thinking mode its documentation requires
 * `reasoning_content` back on assistant turns with tool calls (a 400 otherwise). A turn without
 * reasoning sends none, so on by default for every DeepSeek model; only the retired R1 reasoner
 * rejected it (a task sets `reasoning_send_back: false` for such a model behind another server).
 */

/** The compat settings a preset starts from for `model`; a task's `compat:` overrides them. */
export function presetCompat(name: ProviderName, model: string): OpenAICompat {
  const base = DEFAULT_OPENAI_COMPAT;
  // A model behind a gateway is often named "openai/o3": match the part after the slash.
  const bare = model.slice(model.lastIndexOf("/") + 1);
  switch (name) {
    case "openai":
      return {
        ...base,
        maxTokensField: OPENAI_COMPLETION_TOKENS_MODEL.test(bare)
          ? "max_completion_tokens"
          : "max_tokens",
        developerRole: OPENAI_REASONING_MODEL.test(bare),
      };
    case "deepseek":
      return { ...base, reasoningSendBack: true };
    case "anthropic":
    case "openrouter":
    case "ollama":
    case "vllm":
    case "openai-compatible":
      return base;
    default: {
      const never: never = name;
      return never;
    }
  }
}

/** The settings a run uses: the preset's for its model, overridden field by field by the task. */
export function effectiveCompat(
  name: ProviderName,
  model: string,
  overrides: Partial<OpenAICompat>,
): OpenAICompat {
  return { ...presetCompat(name, model), ...overrides };
}
