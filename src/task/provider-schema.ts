import { z } from "zod";
import { PROVIDER_NAMES, PROVIDER_PRESETS } from "../model/providers.js";

/** Names a process environment accepts (the same rule as `bash.env`). */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How API keys start (OpenAI, Anthropic, Groq, GitHub, Hugging Face, xAI, Google, Replicate). */
const KEY_PREFIX = /^(sk|pk|rk|gsk|ghp|gho|hf|xai|r8)[-_]|^AIza/i;

const KEY_FIX =
  "never write a key in a task file: export it in an environment variable (export MY_API_KEY=...) and write that variable's name here (api_key_env: MY_API_KEY)";

/**
 * Why `value` cannot be the name in `api_key_env`, or undefined. The value itself is never
 * repeated: when it is a key, the message must not print it.
 */
export function apiKeyEnvProblem(value: string): string | undefined {
  if (KEY_PREFIX.test(value)) return `this looks like an API key, not a variable name; ${KEY_FIX}`;
  if (!ENV_NAME_PATTERN.test(value)) {
    return `expected the name of an environment variable (letters, digits and '_', not starting with a digit); a value with other characters is likely a key: ${KEY_FIX}`;
  }
  if (looksRandom(value)) {
    return `this looks like an API key (long and random), not a variable name; ${KEY_FIX}`;
  }
  return undefined;
}

/**
 * Long and high-entropy: mixed case with digits, a long run with no word breaks (hex), or a word
 * of 16 or more characters that mixes letters and digits (AKIAIOSFODNN7EXAMPLE, an AWS key id).
 */
function looksRandom(value: string): boolean {
  const hasRandomWord = value
    .split("_")
    .some((word) => word.length >= 16 && /\d/.test(word) && /[A-Za-z]/.test(word));
  if (hasRandomWord) return true;
  if (value.length < 20) return false;
  const isMixed = /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value);
  return isMixed || (value.length >= 32 && !value.includes("_"));
}

/** Why `value` cannot be a base URL, or undefined (shared by `provider.base_url` and `--base-url`). */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected a URL such as "http://localhost:8000/v1", got ${JSON.stringify(value.slice(0, 200))}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `expected an http:// or https:// URL, got one starting with ${JSON.stringify(url.protocol)}`;
  }
  if (url.username !== "" || url.password !== "") {
    return `the URL holds a user name or password; ${KEY_FIX}`;
  }
  const segments = url.pathname.split("/").map((segment) => decodeURIComponent(segment));
  if (segments.some((segment) => KEY_PREFIX.test(segment))) {
    return `the URL's path holds what looks like an API key; ${KEY_FIX}`;
  }
  if ([...url.searchParams.keys()].some((name) => /key|token|secret|password/i.test(name))) {
    return `the URL's query holds a key or token parameter; ${KEY_FIX}`;
  }
  return undefined;
}

function refined(problem: (value: string) => string | undefined) {
  return z.string().check((ctx) => {
    const message = problem(ctx.value);
    // `input` is left out on purpose: a key must not travel further in the issue.
    if (message !== undefined) ctx.issues.push({ code: "custom", input: "", message });
  });
}

/** A base URL (task files, transcripts): its problems phrased by `baseUrlProblem`. */
export const baseUrlField = refined(baseUrlProblem);

/**
 * A key variable's name (task files, transcripts): never a key. The JSON Schema states the name's
 * shape; the key-like prefixes and randomness the runner also refuses are beyond a pattern.
 */
export const apiKeyEnvField = refined(apiKeyEnvProblem).meta({ pattern: ENV_NAME_PATTERN.source });

const flag = (description: string) => z.boolean().optional().describe(description);

/** The OpenAI-format wire settings a task may override; snake_case here, camelCase in `OpenAICompat`. */
export const CompatSchema = z
  .object({
    stream_usage: flag(
      "Send stream_options.include_usage to get token counts; turn off for servers that reject it (Mistral's 422, some gateways). Default: true.",
    ),
    max_tokens_field: z
      .enum(["max_tokens", "max_completion_tokens"])
      .optional()
      .describe(
        "The request field for the output limit. Default: max_completion_tokens for OpenAI's o-series and gpt-5 models, max_tokens elsewhere.",
      ),
    developer_role: flag(
      'Send the system prompt with role "developer". Default: true for OpenAI\'s o-series models, false elsewhere.',
    ),
    strict_tools: flag("Mark each tool function strict: true. Default: false."),
    send_tool_choice: flag('Send tool_choice: "auto" with the tools. Default: false.'),
    reasoning_send_back: flag(
      "Send reasoning_content back on assistant turns that called tools (DeepSeek's thinking mode requires it; older reasoners reject it). Default: true on the deepseek preset (its V4 models think by default), false elsewhere.",
    ),
  })
  .strict()
  .optional()
  .describe(
    "OpenAI chat-completions wire settings (api: openai only). Each has a per-preset default.",
  );

/** The task file's `provider:` section. */
export const ProviderSchema = z
  .object({
    name: z
      .enum(PROVIDER_NAMES)
      .optional()
      .describe(
        `Preset: fills in the base URL, the API and the key variable. One of ${PROVIDER_NAMES.join(", ")}. Default: anthropic. --provider overrides it.`,
      ),
    base_url: baseUrlField
      .optional()
      .describe(
        "The API's base URL (a gateway, a local server). Default: the preset's (openai-compatible has none: required); for anthropic, ANTHROPIC_BASE_URL when set. --base-url overrides it.",
      ),
    api_key_env: apiKeyEnvField.optional().describe(
      `The NAME of the environment variable holding the API key, never the key. Default: the preset's (${Object.entries(
        PROVIDER_PRESETS,
      )
        .flatMap(([name, preset]) =>
          preset.apiKeyEnv === undefined ? [] : [`${name}: ${preset.apiKeyEnv}`],
        )
        .join(", ")}; ollama, vllm and openai-compatible: none).`,
    ),
    api: z
      .enum(["anthropic", "openai"])
      .optional()
      .describe(
        'The wire format: "anthropic" (Messages API) or "openai" (chat completions). Default: the preset\'s.',
      ),
    compat: CompatSchema,
  })
  .strict()
  .optional()
  .describe("Which model API the task talks to. Default: Anthropic's Messages API.");

/** How tools reach the model: the API's own tool calls, or a text protocol in the prompt. */
export const ToolProtocolSchema = z
  .enum(["native", "text"])
  .optional()
  .describe(
    'How the model calls tools: "native" (the API\'s tool calls) or "text" (tools listed in the system prompt, one "tool: NAME({json})" line per reply; for models without tool support). Default: native.',
  );
