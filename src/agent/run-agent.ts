import { messageOf } from "../errors.js";
import { clip } from "../format.js";
import {
  type AssistantBlock,
  type Message,
  type ModelClient,
  ModelError,
  type ModelReply,
  type Reasoning,
  type ToolSpec,
  type ToolUseBlock,
  textOf,
} from "../model/model-client.js";
import { MAX_MALFORMED_IN_A_ROW, protocolErrorOf } from "../model/protocol-error.js";
import type { Tool } from "../tools/define-tool.js";
import { Budget, type BudgetLimits, type CostOf, type LimitHit } from "./budget.js";
import { estimatedTokens, fitContext, messageChars } from "./context.js";
import type { AgentEvent, RunResult, RunStatus } from "./events.js";
import { describeLimit } from "./limit-text.js";
import { type LoopGuard, runToolCalls } from "./tool-calls.js";

/** The reason a run's abort signal carries; anything else counts as a cancellation. */
export type AbortReason = "timeout" | "cancelled";

export type RunAgentOptions = {
  model: ModelClient;
  modelName: string;
  system: string;
  prompt: string;
  /** Sent with every request; undefined: the model's default. */
  reasoning?: Reasoning | undefined;
  tools: readonly Tool[];
  /** `timeoutMs` is enforced by the caller through `signal`; it is here for the limit event. */
  limits: BudgetLimits & {
    maxOutputTokens: number;
    timeoutMs?: number;
    maxRepeatedCalls?: number;
    /** Context budget: older tool results are elided from what is sent past it. */
    maxContextTokens?: number;
  };
  workspaceRoot: string;
  /** Aborted with an `AbortReason` on timeout or cancellation. */
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  /** Prices each reply, for `limits.maxCostUsd` and the run's cost. */
  costOf?: CostOf;
  /** Asked before each model call: a limit outside the task (a batch budget) that stops it. */
  gate?: () => LimitHit | undefined;
  /**
   * Settles once the workspace may be changed (its starting snapshot is taken); tools wait for
   * it, model calls don't. A rejection ends the run with `error`.
   */
  ready?: Promise<void>;
};

/** What the loop keeps between turns. */
type RunState = {
  options: RunAgentOptions;
  budget: Budget;
  toolSpecs: ToolSpec[];
  toolsByName: ReadonlyMap<string, Tool>;
  messages: Message[];
  startedAt: number;
  apiDurationMs: number;
  lastReply: ModelReply | undefined;
  /** The conversation's size in characters, with the system prompt and tools, for the context budget. */
  contextChars: number;
  guard: LoopGuard;
  /** Replies in a row whose call was malformed (a protocol error): `MAX_MALFORMED_IN_A_ROW` ends the run. */
  malformedInARow: number;
};

/** Told to the model when its reply hit `max_output_tokens` before it finished. */
export const CUT_OFF_NOTICE =
  "Your last reply was cut off because it reached the output token limit. Continue from where it stopped; split large files into several smaller edits.";

/**
 * The agent loop: call the model, run every tool call of its reply, send all results back, until
 * the model ends its turn or a limit stops it. Limit hits, model failures and aborts end the run
 * with a status; tool failures go back to the model as error results.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const state: RunState = {
    options,
    budget: new Budget(options.limits, options.costOf),
    toolSpecs: options.tools.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    })),
    toolsByName: new Map(options.tools.map((tool) => [tool.name, tool])),
    messages: [{ role: "user", content: options.prompt }],
    startedAt: performance.now(),
    apiDurationMs: 0,
    lastReply: undefined,
    guard: { lastCallKey: undefined, repeats: 0 },
    malformedInARow: 0,
    contextChars:
      options.system.length +
      JSON.stringify(options.tools.map((tool) => tool.inputSchema)).length +
      options.prompt.length,
  };
  for (;;) {
    const ended = await takeTurn(state).catch((error: unknown) => endByBug(state, error));
    if (ended !== undefined) return ended;
  }
}

/**
 * A failure of the loop itself (a bug, a reporter that threw) ends the run with `error`, keeping
 * the steps and tokens spent so far: the result line and summary still count them.
 */
function endByBug(state: RunState, error: unknown): RunResult {
  if (state.options.signal.aborted) return endAborted(state);
  return end(state, "error", `internal error: ${messageOf(error)}`);
}

/** One turn: check the limits, call the model, run its tool calls. Returns the result once the run ends. */
async function takeTurn(state: RunState): Promise<RunResult | undefined> {
  const { options, budget } = state;
  if (options.signal.aborted) return endAborted(state);
  const gateHit = options.gate?.();
  if (gateHit !== undefined) return endAtLimit(state, gateHit, budget.steps);
  const callHit = budget.beforeCall();
  if (callHit !== undefined) return endAtLimit(state, callHit, budget.steps);
  const step = budget.steps;

  keepWithinContext(state, step);
  const reply = await callModel(state, step);
  if (!("message" in reply)) return reply;
  push(state, { role: "assistant", content: reply.content });
  const tokenHit = budget.afterReply(reply);
  const calls = reply.content.filter(isToolUse);
  if (tokenHit !== undefined) return endPastLimit(state, tokenHit, step, calls.length === 0);

  if (calls.length === 0) return afterFinalReply(state, reply);
  const notReady = await waitUntilReady(options.ready);
  if (notReady !== undefined) return end(state, "error", notReady);
  const { results, loop } = await runToolCalls(calls, reply.stopReason === "max_tokens", {
    step,
    toolsByName: state.toolsByName,
    workspaceRoot: options.workspaceRoot,
    signal: options.signal,
    onEvent: options.onEvent,
    guard: state.guard,
    maxRepeatedCalls: options.limits.maxRepeatedCalls,
  });
  if (loop !== undefined) return endAtLimit(state, loop, step);
  if (options.signal.aborted) return endAborted(state);
  push(state, { role: "user", content: results });
  return afterMalformed(state, calls);
}

/** Counts replies in a row whose call was malformed; the run ends at `MAX_MALFORMED_IN_A_ROW`. */
function afterMalformed(state: RunState, calls: readonly ToolUseBlock[]): RunResult | undefined {
  const malformed = calls.map(protocolErrorOf).find((error) => error?.malformed === true);
  state.malformedInARow = malformed === undefined ? 0 : state.malformedInARow + 1;
  if (malformed === undefined || state.malformedInARow < MAX_MALFORMED_IN_A_ROW) return undefined;
  const count = state.malformedInARow;
  const last = clip(malformed.error, 300);
  return end(state, "protocol_error", `${count} malformed tool calls in a row; the last: ${last}`);
}

/** Waits for the workspace; the reason it never became ready, if so. */
async function waitUntilReady(ready: Promise<void> | undefined): Promise<string | undefined> {
  return ready?.then(() => undefined, messageOf);
}

/** Appends a message, keeping the conversation's size up to date. */
function push(state: RunState, message: Message): void {
  state.messages.push(message);
  state.contextChars += messageChars(message);
}

/** Before a call: elides old tool results once the conversation outgrows the context budget. */
function keepWithinContext(state: RunState, step: number): void {
  const max = state.options.limits.maxContextTokens;
  if (max === undefined) return;
  const before = state.contextChars;
  const { chars, removed } = fitContext(state.messages, max, before);
  state.contextChars = chars;
  if (removed > 0)
    state.options.onEvent({
      type: "context_trimmed",
      step,
      removedResults: removed,
      maxTokens: max,
      preTokens: estimatedTokens(before),
      postTokens: estimatedTokens(chars),
    });
}

/** Calls the model; a `ModelError` or an abort ends the run (returned as a result). */
async function callModel(state: RunState, step: number): Promise<ModelReply | RunResult> {
  const { options } = state;
  const startedAt = performance.now();
  try {
    state.lastReply = await options.model.complete(
      {
        model: options.modelName,
        system: options.system,
        messages: state.messages,
        tools: state.toolSpecs,
        maxOutputTokens: options.limits.maxOutputTokens,
        ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
      },
      {
        signal: options.signal,
        onRetry: (notice) => options.onEvent({ type: "model_retry", step, notice }),
        onWarning: (warning) => options.onEvent({ type: "model_warning", step, warning }),
      },
    );
  } catch (error) {
    if (options.signal.aborted) return endAborted(state);
    if (error instanceof ModelError) {
      const { status, category, message } = error;
      options.onEvent({ type: "model_error", step, status, category, message });
      return end(state, "error", error.message);
    }
    throw error;
  } finally {
    state.apiDurationMs += performance.now() - startedAt;
  }
  const durationMs = Math.round(performance.now() - startedAt);
  options.onEvent({ type: "model_reply", step, reply: state.lastReply, durationMs });
  return state.lastReply;
}

/** A reply without tool calls ends the run, unless it was cut off or paused mid-turn. */
function afterFinalReply(state: RunState, reply: ModelReply): RunResult | undefined {
  switch (reply.stopReason) {
    case "max_tokens":
      push(state, { role: "user", content: CUT_OFF_NOTICE });
      state.options.onEvent({
        type: "runner_message",
        step: state.budget.steps,
        text: CUT_OFF_NOTICE,
      });
      return undefined;
    case "pause_turn":
      return undefined;
    case "refusal":
      return end(state, "error", "the model refused the request (stop_reason: refusal)");
    default:
      return end(state, "completed");
  }
}

function end(state: RunState, status: RunStatus, error?: string): RunResult {
  return {
    status,
    steps: state.budget.steps,
    usage: state.budget.usage,
    costUsd: state.budget.spentUsd,
    finalText: state.lastReply === undefined ? "" : textOf(state.lastReply.content),
    stopReason: state.lastReply?.stopReason ?? null,
    durationMs: Math.round(performance.now() - state.startedAt),
    apiDurationMs: Math.round(state.apiDurationMs),
    error,
  };
}

function endAborted(state: RunState): RunResult {
  const { options, budget } = state;
  if (options.signal.reason !== "timeout") return end(state, "cancelled", "the run was cancelled");
  const elapsedMs = Math.round(performance.now() - state.startedAt);
  const max = options.limits.timeoutMs ?? elapsedMs;
  // The timer started before the loop did, so the loop's own clock can read a little under it.
  return endAtLimit(state, { limit: "timeout", used: Math.max(elapsedMs, max), max }, budget.steps);
}

/**
 * A reply took the run past its token or cost limit. When it was the final answer (no tool calls,
 * the turn ended) the run completed: no further call was made, and the result records the excess.
 */
function endPastLimit(state: RunState, hit: LimitHit, step: number, hasNoCalls: boolean) {
  const stopReason = state.lastReply?.stopReason ?? null;
  const isFinal = hasNoCalls && !["max_tokens", "pause_turn", "refusal"].includes(stopReason ?? "");
  if (
    !isFinal ||
    (hit.limit !== "max_tokens" && hit.limit !== "max_cost") ||
    Number.isNaN(hit.used)
  )
    return endAtLimit(state, hit, step);
  const exceeded = { limit: hit.limit, used: hit.used, max: hit.max };
  return { ...end(state, "completed"), limitExceededByFinalReply: exceeded };
}

function endAtLimit(state: RunState, hit: LimitHit, step: number): RunResult {
  state.options.onEvent({ type: "limit_reached", step, ...hit });
  return end(state, hit.limit, describeLimit(hit));
}

function isToolUse(block: AssistantBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}
