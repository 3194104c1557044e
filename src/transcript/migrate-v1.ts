import { ZERO_USAGE } from "../model/model-client.js";
import { backoffMs } from "../model/retry-delay.js";
import { sdkMessage } from "./lines.js";
import { resultUsage, terminalReasonOf } from "./result-line.js";

// Version 1 → 2: the lines gained the fields the Agent SDK's types require. A version-1 line is
// given them as version 2 would have written them, where it recorded enough to say, and
// otherwise the defaults docs/transcript.md names. Lines are still unvalidated JSON here.

type Json = Record<string, unknown>;

/** One version-1 line as version 2 writes it; `init` is the transcript's first line. */
export function migrateV1Line(line: unknown, init: unknown): unknown {
  if (!isObject(line)) return line;
  const kind = line.type === "system" ? `system/${String(line.subtype)}` : line.type;
  switch (kind) {
    case "system/init":
      return initV2(line);
    case "assistant":
      return isObject(line.message) ? { ...line, message: messageV2(line.message) } : line;
    case "system/api_retry":
      return retryV2(line);
    case "system/compact_boundary":
      return {
        ...line,
        compact_metadata: {
          trigger: "auto",
          // Version 1 did not record the size; the trim began past this budget.
          pre_tokens: numberOr(line.context_max_tokens, 0),
        },
      };
    case "result":
      return resultV2(line, isObject(init) ? init : {});
    default:
      return line;
  }
}

function initV2(line: Json): Json {
  const task = isObject(line.task) ? line.task : {};
  const provider = isObject(task.provider) ? task.provider : {};
  // Before providers, every run used ANTHROPIC_API_KEY.
  const variable = "provider" in task ? provider.api_key_env : "ANTHROPIC_API_KEY";
  const apiKeySource =
    task.offline === true || typeof variable !== "string"
      ? "none"
      : variable === "ANTHROPIC_API_KEY"
        ? variable
        : "user";
  return {
    claude_code_version: line.agent_run_version,
    apiKeySource,
    permissionMode: "dontAsk",
    mcp_servers: [],
    slash_commands: [],
    output_style: "default",
    skills: [],
    plugins: [],
    ...line,
  };
}

/**
 * Version 1 checked only `role` and `content`. A content that is not a list of blocks is left as
 * it is, for validation to say what is wrong.
 */
function messageV2(message: Json): Json {
  const { content } = message;
  if (!Array.isArray(content) || !content.every(isObject)) return message;
  const usage = isObject(message.usage) ? message.usage : {};
  return sdkMessage({
    id: typeof message.id === "string" ? message.id : "",
    type: "message",
    role: "assistant",
    model: typeof message.model === "string" ? message.model : "",
    stop_reason: null,
    ...message,
    content: content.map((block) => ({ type: String(block.type), ...block })),
    usage,
  });
}

/** The SDK's category of a retried failure, from its HTTP status (version 1 kept the words only). */
function retryV2(line: Json): Json {
  const status = line.error_status;
  const error =
    status === 429
      ? "rate_limit"
      : status === 529
        ? "overloaded"
        : typeof status === "number" && status >= 500
          ? "server_error"
          : "unknown";
  return {
    ...line,
    error,
    error_message: typeof line.error === "string" ? line.error : "",
    retry_delay_ms:
      typeof line.retry_delay_ms === "number"
        ? line.retry_delay_ms
        : backoffMs(numberOr(line.attempt, 1)),
  };
}

/** Version 1 left `modelUsage`, `permission_denials` and `stop_reason` unchecked: each may be missing. */
function resultV2(line: Json, init: Json): Json {
  const task = isObject(init.task) ? init.task : {};
  const limits = isObject(task.limits) ? task.limits : {};
  const models = isObject(line.modelUsage) ? line.modelUsage : {};
  const modelUsage = Object.fromEntries(
    Object.entries(models).map(([model, entry]) => [model, modelUsageV2(entry, limits)]),
  );
  const unpriced = Object.entries(models)
    .filter(([, entry]) => isObject(entry) && entry.costUSD === null)
    .map(([model]) => model);
  const isUnpriced = line.total_cost_usd === null;
  const usage = isObject(line.usage) ? line.usage : {};
  const cacheCreation = numberOr(usage.cache_creation_input_tokens, 0);
  const status = String(line.status);
  const { terminal_reason: _v1Reason, ...rest } = line;
  const reason = terminalReasonOf(status);
  return {
    ...rest,
    total_cost_usd: numberOr(line.total_cost_usd, 0),
    unpriced_models:
      isUnpriced && unpriced.length === 0 ? [String(init.model ?? "unknown")] : unpriced,
    usage: { ...resultUsage({ ...ZERO_USAGE, cacheCreationInputTokens: cacheCreation }), ...usage },
    modelUsage,
    permission_denials: Array.isArray(line.permission_denials) ? line.permission_denials : [],
    stop_reason: typeof line.stop_reason === "string" ? line.stop_reason : null,
    ...(reason === undefined ? {} : { terminal_reason: reason }),
    ...(status === "completed" || Array.isArray(line.errors)
      ? {}
      : { errors: [`the run ended with status ${status}`] }),
  };
}

/** One model's entry with the SDK's fields; counts version 1 did not record are 0. */
function modelUsageV2(entry: unknown, limits: Json): Json {
  const recorded = isObject(entry) ? entry : {};
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    contextWindow: numberOr(limits.max_context_tokens, 0),
    maxOutputTokens: numberOr(limits.max_output_tokens, 0),
    ...recorded,
    costUSD: numberOr(recorded.costUSD, 0),
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
