/** How one OpenAI-compatible server differs from the next; presets pick defaults, tasks override. */
export type OpenAICompat = {
  /** Send `stream_options: { include_usage: true }` (some servers reject it with a 422). */
  streamUsage: boolean;
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** The system prompt as role `developer` (OpenAI reasoning models). */
  developerRole: boolean;
  /** `function.strict: true` on every tool. */
  strictTools: boolean;
  /** Send `tool_choice: "auto"` (some servers reject any tool_choice). */
  sendToolChoice: boolean;
  /** Send `reasoning_content` back on assistant turns with tool calls (DeepSeek thinking mode). */
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
