import { cutDeeperThan, nestsDeeperThan } from "../json-depth.js";
import { MAX_TOOL_INPUT_DEPTH } from "./reply-limits.js";

/**
 * The one seam between the agent loop and a model. Content blocks use the Messages API's wire
 * shapes (snake_case), so replies can be written to the transcript verbatim and replayed later.
 */

export type TextBlock = { type: "text"; text: string };
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: unknown };
export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
};
/** Blocks we pass through untouched (thinking, redacted_thinking, server tools...). */
export type OtherBlock = { type: string; [key: string]: unknown };

export type AssistantBlock = TextBlock | ToolUseBlock | OtherBlock;

/**
 * A model's reasoning from a provider other than Anthropic (DeepSeek's `reasoning_content`, an
 * inline `<think>`): recorded in the transcript, never sent to the Messages API.
 */
export type ReasoningBlock = { type: "reasoning"; text: string };

/**
 * The key a tool call's input holds the raw arguments under when they were not valid JSON (an
 * OpenAI-format reply): the loop answers such a call with an error and never runs it.
 */
export const INVALID_JSON_INPUT_KEY = "__invalid_json_arguments";

/** The raw arguments of a call whose input is the invalid-JSON marker, else undefined. */
export function invalidJsonArgumentsOf(input: unknown): string | undefined {
  if (
    typeof input !== "object" ||
    input === null ||
    !Object.hasOwn(input, INVALID_JSON_INPUT_KEY)
  ) {
    return undefined;
  }
  const raw: unknown = Reflect.get(input, INVALID_JSON_INPUT_KEY);
  return typeof raw === "string" ? raw : String(raw);
}

export type Message =
  | { role: "user"; content: string | Array<TextBlock | ToolResultBlock> }
  | { role: "assistant"; content: AssistantBlock[] };

/** A tool as the model sees it. */
export type ToolSpec = { name: string; description: string; inputSchema: Record<string, unknown> };

/** Effort levels a task may ask for: the Messages API's `output_config.effort`, OpenAI's `reasoning_effort`. */
export const REASONING_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * How the model reasons before it answers (the task's `reasoning:`). Messages API: `budgetTokens`
 * is manual thinking (`thinking: {type: "enabled", budget_tokens}`), else `effort` turns on
 * adaptive thinking with that effort. OpenAI format: `effort` is sent as `reasoning_effort`.
 */
export type Reasoning = { effort?: ReasoningEffort; budgetTokens?: number };

/** Blocks the Messages API signs (thinking) and checks, with the conversation before them, when sent back. */
export function isSignedBlock(block: { type: string }): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

/** What a turn is sent as when all it held was left out: the API refuses an empty turn. */
export const LEFT_OUT_TURN_TEXT = "[this turn held only reasoning, which is not sent here]";

/** A turn's blocks without those `isLeftOut` picks; a turn left with none says so. */
export function withoutBlocks(
  content: readonly AssistantBlock[],
  isLeftOut: (block: AssistantBlock) => boolean,
): AssistantBlock[] {
  const kept = content.filter((block) => !isLeftOut(block));
  return kept.length > 0 ? kept : [{ type: "text", text: LEFT_OUT_TURN_TEXT }];
}

export type ModelRequest = {
  model: string;
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxOutputTokens: number;
  /** Text that ends the reply where it appears (`stop_sequences`); clients without them ignore it. */
  stopSequences?: readonly string[];
  /** Undefined: the model's default (no thinking parameters sent). */
  reasoning?: Reasoning;
};

/** Token usage as the API reports it for one call. */
export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
};

/** The assistant message exactly as the API returned it (snake_case), for the transcript. */
export type ApiMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AssistantBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage: Record<string, unknown>;
  [key: string]: unknown;
};

export type ModelReply = {
  message: ApiMessage;
  content: AssistantBlock[];
  stopReason: string | null;
  usage: Usage;
};

/** A retry the client made on its own (rate limit, overload, connection reset). */
export type RetryNotice = {
  attempt: number;
  maxRetries: number;
  status: number | null;
  /** What kind of failure it was, as `ModelError.category` says it. */
  category: ModelErrorCategory;
  /** The wait before the retry: the server's `retry-after`, else the backoff (`retry-delay.ts`). */
  delayMs: number;
  error: string;
};

export type CompleteOptions = {
  signal: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
  /**
   * A warning the SDK gave about this call (a deprecated model), instead of printing it; `source`
   * names the SDK (`the Anthropic SDK`). Without it the SDK prints to the console as it would.
   */
  onWarning?: (warning: SdkWarning) => void;
};

/** A warning an SDK printed, as text (clipped, unable to start a workflow command). */
export type SdkWarning = { source: string; message: string };

/**
 * A model behind the loop. `complete` throws only `ModelError` (or rethrows the abort reason when
 * `signal` is aborted); everything else is normalised into `ModelReply`.
 */
export type ModelClient = {
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelReply>;
};

/** What kind of failure a model call met, as the SDK's own error classes tell them apart. */
export type ModelErrorCategory =
  | "authentication"
  | "rate_limit"
  | "overloaded"
  | "server_error"
  | "connection"
  | "not_found"
  | "invalid_request"
  | "unknown";

/** Why a model call failed, after the client's own retries; ends the run with status `error`. */
export class ModelError extends Error {
  readonly status: number | null;
  readonly category: ModelErrorCategory;
  readonly isRetryable: boolean;

  constructor(
    message: string,
    opts: {
      status?: number | null;
      category?: ModelErrorCategory;
      isRetryable?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "ModelError";
    this.status = opts.status ?? null;
    this.category = opts.category ?? "unknown";
    this.isRetryable = opts.isRetryable ?? false;
  }
}

/**
 * A reply in the loop's terms, from the message as the API sent it (streamed, recorded or
 * scripted). A tool call's input nested deeper than `MAX_TOOL_INPUT_DEPTH` is cut to one level
 * more (see `cutDeeperThan`): still too deep, so the loop answers the call with an error, and
 * shallow enough for everything that walks it (the transcript, the next request, zod).
 */
export function toModelReply(reply: ApiMessage): ModelReply {
  const message = withBoundedInputs(reply);
  return {
    message,
    content: message.content,
    stopReason: message.stop_reason,
    usage: usageOf(message.usage),
  };
}

function withBoundedInputs(message: ApiMessage): ApiMessage {
  if (!Array.isArray(message.content)) return message;
  const isTooDeep = (block: AssistantBlock) =>
    block.type === "tool_use" &&
    "input" in block &&
    nestsDeeperThan(block.input, MAX_TOOL_INPUT_DEPTH + 1);
  if (!message.content.some(isTooDeep)) return message;
  const content = message.content.map((block) =>
    isTooDeep(block) && "input" in block
      ? { ...block, input: cutDeeperThan(block.input, MAX_TOOL_INPUT_DEPTH + 1) }
      : block,
  );
  return { ...message, content };
}

/**
 * A token count as a server sent it: anything but a finite, non-negative number (left out, null,
 * a string, -1e9, Infinity) counts as 0, so no reply can lower a run's tokens or cost, and a
 * count past 2^53 counts as 2^53 - 1, so a cost stays a number however absurd the count. The one
 * rule for both wire formats (`usageOf`, the OpenAI client's usage conversion).
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, Number.MAX_SAFE_INTEGER);
}

/** The API's usage fields, each read with `tokenCount`. */
export function usageOf(usage: Record<string, unknown>): Usage {
  return {
    inputTokens: tokenCount(usage.input_tokens),
    outputTokens: tokenCount(usage.output_tokens),
    cacheCreationInputTokens: tokenCount(usage.cache_creation_input_tokens),
    cacheReadInputTokens: tokenCount(usage.cache_read_input_tokens),
  };
}

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
};

/** Sums two usages field by field. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
  };
}

/** Every token the API billed for: input, output and both kinds of cache tokens. */
export function totalTokens(usage: Usage): number {
  return (
    usage.inputTokens +
    usage.outputTokens +
    usage.cacheCreationInputTokens +
    usage.cacheReadInputTokens
  );
}

/** The text blocks of a reply, joined: what the model "said". */
export function textOf(content: readonly AssistantBlock[]): string {
  return content
    .flatMap((block) =>
      block.type === "text" && typeof block.text === "string" ? [block.text] : [],
    )
    .join("\n")
    .trim();
}
