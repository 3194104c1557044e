import type { ModelClient } from "../model-client.js";

// Placeholder (the lead drops it at merge): the oai engineer's module replaces this file.

export type OpenAICompat = {
  streamUsage: boolean;
  maxTokensField: "max_tokens" | "max_completion_tokens";
  developerRole: boolean;
  strictTools: boolean;
  sendToolChoice: boolean;
  reasoningSendBack: boolean;
};

export const DEFAULT_OPENAI_COMPAT: OpenAICompat = {
  streamUsage: true,
  maxTokensField: "max_tokens",
  developerRole: false,
  strictTools: false,
  sendToolChoice: false,
  reasoningSendBack: false,
};

export type OpenAIClientOptions = {
  baseURL: string;
  apiKey: string | undefined;
  compat: OpenAICompat;
  maxRetries: number;
  provider: string;
  apiKeyEnv: string | undefined;
};

export function createOpenAIClient(_options: OpenAIClientOptions): ModelClient {
  throw new Error("not built yet");
}
