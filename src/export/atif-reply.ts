import { z } from "zod";
import { roundMillionths } from "../format.js";
import { isRecord } from "../model/error-body.js";
import { type Usage, usageOf } from "../model/model-client.js";
import { type PricedModel, type PriceTable, replyCostUsd } from "../model/pricing.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import type { AtifAgentStep, AtifMetrics, AtifToolCall } from "./atif-types.js";
import { lineError } from "./export-init.js";

// One `assistant` line (a model reply) as an ATIF agent step: its text is the message, its
// thinking (or an OpenAI-format provider's reasoning) the reasoning content, its `tool_use`
// blocks the tool calls, its usage and price the metrics.

export type AssistantLine = Extract<TranscriptLine, { type: "assistant" }>;

/** What every reply of a run is read with. */
export type ReplyContext = {
  path: string;
  prices: PriceTable;
  /** The run's provider and model: each reply is priced as the run priced it. */
  priced: PricedModel;
  /** The task's `reasoning.effort`, when it set one. */
  reasoningEffort: string | undefined;
};

/** A reply's step (numbered by its agent's trajectory) and its usage, for the totals. */
export type ReplyStep = {
  step: Omit<AtifAgentStep, "step_id">;
  usage: Usage;
  costUsd: number | null;
};

/** The blocks a step is made of; others (redacted thinking, server tools...) are left out. */
const BlockSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({ type: z.literal("thinking"), thinking: z.string() }),
  z.looseObject({ type: z.literal("reasoning"), text: z.string() }),
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.unknown(),
  }),
]);

const BLOCK_TYPES = new Set(["text", "thinking", "reasoning", "tool_use"]);

const TokenCountSchema = z.number().int().nonnegative().nullish();

const UsageSchema = z.looseObject({
  input_tokens: TokenCountSchema,
  output_tokens: TokenCountSchema,
  cache_creation_input_tokens: TokenCountSchema,
  cache_read_input_tokens: TokenCountSchema,
});

/** The agent step of the reply on transcript line `lineNumber`; throws `TranscriptError`. */
export function replyStep(
  line: AssistantLine,
  lineNumber: number,
  context: ReplyContext,
  timestamp: string,
): ReplyStep {
  const { message } = line;
  const fail = (problem: string) => lineError(context.path, lineNumber, problem);
  const usage = UsageSchema.safeParse(message.usage);
  if (!usage.success) {
    const issue = usage.error.issues[0];
    throw fail(`message.usage.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const parts = contentParts(message.content, fail);
  const reply = { message, usage: usageOf(message.usage) };
  const cost = replyCostUsd(context.prices, context.priced, reply);
  const costUsd = cost === null ? null : roundMillionths(cost);
  const step: ReplyStep["step"] = {
    timestamp,
    source: "agent",
    ...(message.model === context.priced.model ? {} : { model_name: message.model }),
    ...(context.reasoningEffort === undefined ? {} : { reasoning_effort: context.reasoningEffort }),
    message: parts.text.join("\n"),
    ...(parts.reasoning.length === 0 ? {} : { reasoning_content: parts.reasoning.join("\n") }),
    ...(parts.calls.length === 0 ? {} : { tool_calls: parts.calls }),
    metrics: metricsOf(reply.usage, costUsd),
    extra: { step: line.step, stop_reason: message.stop_reason, duration_ms: line.duration_ms },
  };
  return { step, usage: reply.usage, costUsd };
}

/** The message's text, reasoning and tool calls. */
function contentParts(content: readonly { type: string }[], fail: (problem: string) => Error) {
  const parts = { text: [] as string[], reasoning: [] as string[], calls: [] as AtifToolCall[] };
  content.forEach((raw, index) => {
    if (!BLOCK_TYPES.has(raw.type)) return;
    const parsed = BlockSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw fail(`message.content.${index}.${issue?.path.join(".") ?? ""}: ${issue?.message}`);
    }
    const block = parsed.data;
    if (block.type === "tool_use") parts.calls.push(toolCallOf(block.id, block.name, block.input));
    else if (block.type === "thinking") parts.reasoning.push(block.thinking);
    else if (block.type === "reasoning") parts.reasoning.push(block.text);
    else parts.text.push(block.text);
  });
  return parts;
}

/**
 * A tool call. ATIF's arguments are an object: an input that is not one (an OpenAI-format
 * model's `[1]`, which the run answered with an error) goes under `extra.input` as it was.
 */
function toolCallOf(id: string, name: string, input: unknown): AtifToolCall {
  const call = { tool_call_id: id, function_name: name };
  return isRecord(input)
    ? { ...call, arguments: input }
    : { ...call, arguments: {}, extra: { input } };
}

/**
 * ATIF's metrics: `prompt_tokens` counts every input token (cache writes and reads among them),
 * `cached_tokens` the cache reads; the cache writes, which Anthropic bills apart, go in `extra`.
 */
function metricsOf(usage: Usage, costUsd: number | null): AtifMetrics {
  return {
    prompt_tokens: promptTokens(usage),
    completion_tokens: usage.outputTokens,
    cached_tokens: usage.cacheReadInputTokens,
    ...(costUsd === null ? {} : { cost_usd: costUsd }),
    extra: { cache_creation_input_tokens: usage.cacheCreationInputTokens },
  };
}

/** Every input token of a usage: ATIF's `prompt_tokens`. */
export function promptTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
}
