import { messageOf } from "../errors.js";
import { clip } from "../format.js";
import {
  type AssistantBlock,
  type Message,
  ModelError,
  type ModelReply,
  type ToolUseBlock,
} from "../model/model-client.js";
import { MAX_MALFORMED_IN_A_ROW, protocolErrorOf } from "../model/protocol-error.js";
import type { Tool } from "../tools/define-tool.js";
import { Budget } from "./budget.js";
import { estimatedTokens, fitContext, messageChars } from "./context.js";
import type { AgentEvent, RunResult } from "./events.js";
import { judgeFinalReply } from "./final-output.js";
import {
  end,
  endAborted,
  endAtLimit,
  endPastLimit,
  endStoppedBy,
  endWithError,
  endWithFinalReply,
} from "./run-end.js";
import type { Placement, RunAgentOptions, RunState } from "./run-state.js";
import { createTaskTool, tagged } from "./subagent.js";
import { runToolCalls } from "./tool-calls.js";

/** Told to the model when its reply hit `max_output_tokens` before it finished. */
export const CUT_OFF_NOTICE =
  "Your last reply was cut off because it reached the output token limit. Continue from where it stopped; split large files into several smaller edits.";

/**
 * The agent loop: call the model, run every tool call of its reply, send all results back, until
 * the model ends its turn or a limit stops it. Limit hits, model failures and aborts end the run
 * with a status; tool failures go back to the model as error results.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const budget = new Budget(options.limits, options.costOf);
  return runLoop(options, { budget, origin: undefined, taskIds: new Set() });
}

/** The loop of one agent: the top-level one, or a subagent (`placement.origin`). */
async function runLoop(options: RunAgentOptions, placement: Placement): Promise<RunResult> {
  const { origin } = placement;
  const emit = (event: AgentEvent) => options.onEvent(tagged(origin, event));
  const state: RunState = {
    options,
    budget: placement.budget,
    step: 0,
    origin,
    emit,
    toolSpecs: [],
    toolsByName: new Map(),
    messages: [{ role: "user", content: options.prompt }],
    startedAt: performance.now(),
    apiDurationMs: 0,
    lastReply: undefined,
    guard: { lastCallKey: undefined, repeats: 0 },
    malformedInARow: 0,
    contextChars: 0,
    stoppedBy: undefined,
    outputRetries: 0,
  };
  const tools = [...options.tools, ...taskTool(state, placement)];
  state.toolSpecs = tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
  state.toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  state.contextChars =
    options.system.length +
    JSON.stringify(tools.map((tool) => tool.inputSchema)).length +
    options.prompt.length;
  for (;;) {
    const ended = await takeTurn(state).catch((error: unknown) => endByBug(state, error));
    if (ended !== undefined) return ended;
  }
}

/** The `task` tool, when this agent may start subagents. */
function taskTool(state: RunState, placement: Placement): Tool[] {
  const settings = state.options.subagents;
  if (settings === undefined || placement.budget.depth >= settings.maxDepth) return [];
  return [
    createTaskTool({
      options: state.options,
      settings,
      placement,
      step: () => state.step,
      rootStep: () => state.origin?.rootStep ?? state.step,
      runChild: runLoop,
      onStop: (result) => {
        state.stoppedBy = result.stoppedBy;
      },
    }),
  ];
}

/**
 * A failure of the loop itself (a bug, a reporter that threw) ends the run with `error`, keeping
 * the steps and tokens spent so far: the result line and summary still count them.
 */
function endByBug(state: RunState, error: unknown): RunResult {
  if (state.options.signal.aborted) return endAborted(state);
  return endWithError(state, `internal error: ${messageOf(error)}`, "other");
}

/** One turn: check the limits, call the model, run its tool calls. Returns the result once the run ends. */
async function takeTurn(state: RunState): Promise<RunResult | undefined> {
  const { options, budget } = state;
  if (options.signal.aborted) return endAborted(state);
  const gateHit = options.gate?.();
  if (gateHit !== undefined) return endAtLimit(state, gateHit);
  const callHit = budget.beforeCall();
  if (callHit !== undefined) return endAtLimit(state, callHit);
  state.step += 1;

  keepWithinContext(state);
  const reply = await callModel(state);
  if (!("message" in reply)) return reply;
  push(state, { role: "assistant", content: reply.content });
  const tokenHit = budget.afterReply(reply, state.origin?.rootStep ?? state.step);
  const calls = reply.content.filter(isToolUse);
  if (tokenHit !== undefined) return endPastLimit(state, tokenHit, calls.length === 0);

  if (calls.length === 0) return afterFinalReply(state, reply);
  const notReady = await waitUntilReady(options.ready);
  if (notReady !== undefined) return endWithError(state, notReady, "workspace");
  const { results, loop } = await runToolCalls(calls, reply.stopReason === "max_tokens", {
    step: state.step,
    toolsByName: state.toolsByName,
    workspaceRoot: options.workspaceRoot,
    signal: options.signal,
    onEvent: state.emit,
    guard: state.guard,
    maxRepeatedCalls: options.limits.maxRepeatedCalls,
    parentToolUseId: state.origin?.parentToolUseId,
    isStopped: () => state.stoppedBy !== undefined,
  });
  // The loop guard is this agent's own: a subagent's stops the subagent, not the run.
  if (loop !== undefined) return endAtLimit(state, state.budget.withDepth(loop));
  if (options.signal.aborted) return endAborted(state);
  if (state.stoppedBy !== undefined) return endStoppedBy(state, state.stoppedBy);
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
function keepWithinContext(state: RunState): void {
  const max = state.options.limits.maxContextTokens;
  if (max === undefined) return;
  const before = state.contextChars;
  const { chars, removed } = fitContext(state.messages, max, before);
  state.contextChars = chars;
  if (removed > 0)
    state.emit({
      type: "context_trimmed",
      step: state.step,
      removedResults: removed,
      maxTokens: max,
      preTokens: estimatedTokens(before),
      postTokens: estimatedTokens(chars),
    });
}

/** Calls the model; a `ModelError` or an abort ends the run (returned as a result). */
async function callModel(state: RunState): Promise<ModelReply | RunResult> {
  const { options, step } = state;
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
        onRetry: (notice) => state.emit({ type: "model_retry", step, notice }),
        onWarning: (warning) => state.emit({ type: "model_warning", step, warning }),
      },
    );
  } catch (error) {
    if (options.signal.aborted) return endAborted(state);
    if (error instanceof ModelError) {
      const { status, category, message } = error;
      state.emit({ type: "model_error", step, status, category, message });
      // Failures the SDKs retry (and that outlasted the retries) may pass: the API's, not the run's.
      return endWithError(state, error.message, error.isRetryable ? "api" : "other");
    }
    throw error;
  } finally {
    state.apiDurationMs += performance.now() - startedAt;
  }
  const durationMs = Math.round(performance.now() - startedAt);
  state.emit({ type: "model_reply", step, reply: state.lastReply, durationMs });
  return state.lastReply;
}

/**
 * A reply without tool calls ends the run, unless it was cut off or paused mid-turn, or it is not
 * the structured output the task asks for and a retry is left.
 */
function afterFinalReply(state: RunState, reply: ModelReply): RunResult | undefined {
  switch (reply.stopReason) {
    case "max_tokens":
      return sendRunnerMessage(state, CUT_OFF_NOTICE);
    case "pause_turn":
      return undefined;
    case "refusal":
      return endWithError(state, "the model refused the request (stop_reason: refusal)", "other");
    default: {
      const judged = judgeFinalReply(state);
      if (judged.kind === "retry") return sendRunnerMessage(state, judged.message);
      return endWithFinalReply(state, judged);
    }
  }
}

/** A message from agent-run itself goes to the model (and the transcript); the run goes on. */
function sendRunnerMessage(state: RunState, text: string): undefined {
  push(state, { role: "user", content: text });
  state.emit({ type: "runner_message", step: state.step, text });
  return undefined;
}

function isToolUse(block: AssistantBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}
