import { formatProblem, type TaskFileProblem } from "../errors.js";
import type { OpenAICompat } from "../model/openai/compat.js";
import { PROVIDER_PRESETS } from "../model/providers.js";
import type { ProviderSettings, TaskFile } from "./schema.js";
import type { Locator } from "./yaml-locator.js";

type CompatFile = NonNullable<NonNullable<TaskFile["provider"]>["compat"]>;

/** The task file's `provider:` section with the preset's API filled in, and its own problems. */
export function resolveProvider(
  file: string,
  data: TaskFile,
  locator: Locator,
): { provider: ProviderSettings; problems: TaskFileProblem[] } {
  const section = data.provider;
  const name = section?.name ?? "anthropic";
  const api = section?.api ?? PROVIDER_PRESETS[name].api;
  const problems: TaskFileProblem[] = [];
  if (section?.compat !== undefined && api !== "openai") {
    problems.push({
      file,
      ...locator.key(["provider", "compat"]),
      path: "provider.compat",
      message: `compat settings apply to the OpenAI chat-completions API only, and this provider uses api: ${api}; remove compat or set api: openai`,
    });
  }
  const where = { file, ...locator.key(["provider"]), path: "provider" };
  return {
    provider: {
      name,
      api,
      baseURL: section?.base_url,
      apiKeyEnv: section?.api_key_env,
      compat: toCompat(section?.compat ?? {}),
      // The location without a message: `formatProblem` with an empty one, minus the ": ".
      origin:
        section === undefined ? undefined : formatProblem({ ...where, message: "" }).slice(0, -2),
    },
    problems,
  };
}

/** snake_case as written → the camelCase fields of `OpenAICompat`; only the fields the task sets. */
export function toCompat(compat: CompatFile): Partial<OpenAICompat> {
  const entries = {
    streamUsage: compat.stream_usage,
    maxTokensField: compat.max_tokens_field,
    developerRole: compat.developer_role,
    strictTools: compat.strict_tools,
    sendToolChoice: compat.send_tool_choice,
    reasoningSendBack: compat.reasoning_send_back,
  };
  return Object.fromEntries(
    Object.entries(entries).filter(([, value]) => value !== undefined),
  ) as Partial<OpenAICompat>;
}
