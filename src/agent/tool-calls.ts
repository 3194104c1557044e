import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import {
  invalidJsonArgumentsOf,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../model/model-client.js";
import { PROTOCOL_ERROR_TOOL, protocolErrorOf } from "../model/protocol-error.js";
import { MAX_TOOL_INPUT_DEPTH } from "../model/reply-limits.js";
import { stableJson } from "../stable-json.js";
import { type Tool, ToolError, type ToolResult } from "../tools/define-tool.js";
import type { AgentEvent, LimitHit } from "./events.js";

/**
 * Longest error message of a failed call the model gets (a tool's `ToolError`, or what it threw):
 * they quote paths and input, which each tool clips, and this bounds what slips through.
 */
export const MAX_ERROR_TEXT_CHARS = 4_000;

/** The loop guard's memory: the last tool call and how many times in a row it came. */
export type LoopGuard = { lastCallKey: string | undefined; repeats: number };

/** What running one reply's tool calls needs. */
export type ToolCallContext = {
  step: number;
  toolsByName: ReadonlyMap<string, Tool>;
  workspaceRoot: string;
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  guard: LoopGuard;
  /** `limits.maxRepeatedCalls`: the same call this many times in a row stops the run. */
  maxRepeatedCalls: number | undefined;
  /** Set for a subagent's calls: the `task` call that started it. */
  parentToolUseId?: string | undefined;
  /** Whether a call (a subagent's) stopped the run: the calls after it are not run. */
  isStopped?: () => boolean;
};

/**
 * Runs a reply's tool calls in order, each result reported as it comes; a call cut off by the
 * output limit (`isLastCutOff`) is answered, not run. Stops at an abort, or when the loop guard
 * trips (`loop`).
 */
export async function runToolCalls(
  calls: readonly ToolUseBlock[],
  isLastCutOff: boolean,
  ctx: ToolCallContext,
): Promise<{ results: ToolResultBlock[]; loop: LimitHit | undefined }> {
  const results: ToolResultBlock[] = [];
  for (const [index, call] of calls.entries()) {
    if (ctx.signal.aborted || ctx.isStopped?.() === true) break;
    // First, iteratively: the loop guard's key, zod and the tools walk the input recursively.
    const isTooDeep = nestsDeeperThan(call.input, MAX_TOOL_INPUT_DEPTH);
    const loop = noteRepeat(ctx, call, isTooDeep);
    if (loop !== undefined) return { results, loop };
    const startedAt = performance.now();
    // A protocol error already says why the call did not run (cut off included).
    const isCutOff =
      isLastCutOff && index === calls.length - 1 && call.name !== PROTOCOL_ERROR_TOOL;
    if (!isCutOff) {
      const { name: toolName, id: toolUseId, input } = call;
      ctx.onEvent({ type: "tool_start", step: ctx.step, toolName, toolUseId, input });
    }
    const result = isCutOff
      ? {
          content: `${clip(call.name)}: this call was cut off at the output token limit, so it was not run; send it again, smaller`,
          isError: true,
        }
      : isTooDeep
        ? {
            content: `${clip(call.name)}: the input nests deeper than ${MAX_TOOL_INPUT_DEPTH} levels, so the call was not run; send the input with flat fields`,
            isError: true,
          }
        : invalidJsonArgumentsOf(call.input) !== undefined
          ? {
              content: `${clip(call.name)}: the arguments of this call were not valid JSON, so it was not run; send it again with the arguments as one JSON object`,
              isError: true,
            }
          : await runToolCall(call, ctx);
    const block: ToolResultBlock = {
      type: "tool_result",
      tool_use_id: call.id,
      content: result.content,
      ...(result.isError ? { is_error: true } : {}),
    };
    results.push(block);
    ctx.onEvent({
      type: "tool_result",
      step: ctx.step,
      toolName: call.name,
      input: call.input,
      block,
      durationMs: Math.round(performance.now() - startedAt),
      exitCode: "exitCode" in result ? result.exitCode : undefined,
      recordedContent: "recordedContent" in result ? result.recordedContent : undefined,
      ...("isRefused" in result && result.isRefused === true ? { isRefused: true } : {}),
      ...("isFromRecording" in result && result.isFromRecording === true
        ? { isFromRecording: true }
        : {}),
      // Only a call that ran can have been cut short; an answered one was never started. A task
      // call whose subagent a limit of the run stopped was cut short too.
      isInterrupted: (ctx.signal.aborted || ctx.isStopped?.() === true) && !isCutOff && !isTooDeep,
    });
    if ("plan" in result && result.plan !== undefined && !result.isError) {
      ctx.onEvent({ type: "plan_updated", step: ctx.step, items: result.plan });
    }
  }
  return { results, loop: undefined };
}

/**
 * The loop guard: the same call with the same input `maxRepeatedCalls` times in a row stops the
 * run. Inputs nested too deep all count as one (their key is not built: it would recurse).
 */
function noteRepeat(
  ctx: ToolCallContext,
  call: ToolUseBlock,
  isTooDeep: boolean,
): LimitHit | undefined {
  const max = ctx.maxRepeatedCalls;
  const key = `${call.name} ${isTooDeep ? "(nested too deep)" : stableJson(call.input)}`;
  ctx.guard.repeats = key === ctx.guard.lastCallKey ? ctx.guard.repeats + 1 : 1;
  ctx.guard.lastCallKey = key;
  return max !== undefined && ctx.guard.repeats >= max
    ? { limit: "loop", used: ctx.guard.repeats, max }
    : undefined;
}

/**
 * Runs one tool call; any throw, an unknown tool, or a call the model's client could not read (a
 * protocol error: its message) becomes an error result for the model.
 */
async function runToolCall(call: ToolUseBlock, ctx: ToolCallContext): Promise<ToolResult> {
  const { toolsByName, workspaceRoot, signal, parentToolUseId } = ctx;
  const protocolError = protocolErrorOf(call);
  if (protocolError !== undefined) {
    const message = protocolError.error || "this tool call could not be read, so it was not run";
    return { content: clip(message, MAX_ERROR_TEXT_CHARS), isError: true };
  }
  const tool = toolsByName.get(call.name);
  if (tool === undefined) {
    const known = [...toolsByName.keys()].join(", ") || "none";
    return {
      content: `unknown tool ${clip(JSON.stringify(call.name) ?? String(call.name))}; the tools you have are: ${known}`,
      isError: true,
    };
  }
  try {
    return await tool.execute(call.input, {
      workspaceRoot,
      signal,
      toolUseId: call.id,
      ...(parentToolUseId === undefined ? {} : { parentToolUseId }),
    });
  } catch (error) {
    if (error instanceof ToolError) {
      return { content: clip(error.message, MAX_ERROR_TEXT_CHARS), isError: true };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      content: clip(`${call.name} failed: ${message}`, MAX_ERROR_TEXT_CHARS),
      isError: true,
    };
  }
}
