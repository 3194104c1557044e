import { PROVIDER_PRESETS } from "../../src/model/providers.js";
import type { ProviderSettings } from "../../src/task/schema.js";

/**
 * A task's provider as a task file without a `provider:` section resolves it: the anthropic
 * preset, its URL and key variable. Clients built with it in tests are never called.
 */
export function anthropicProvider(settings: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    name: "anthropic",
    api: "anthropic",
    baseURL: PROVIDER_PRESETS.anthropic.baseURL,
    apiKeyEnv: "ANTHROPIC_API_KEY",
    compat: {},
    origin: undefined,
    ...settings,
  };
}
