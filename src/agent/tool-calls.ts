import type { ToolResultBlock, ToolUseBlock } from "../model/model-client.js";
import { type Tool, ToolError, type ToolResult } from "../tools/define-tool.js";
import type { LimitHit } from "./budget.js";
import type { AgentEvent } from "./events.js";
import { stableJson } from "./limit-text.js";

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
    if (ctx.signal.aborted) break;
    const loop = noteRepeat(ctx, call);
    if (loop !== undefined) return { results, loop };
    const startedAt = performance.now();
    const isCutOff = isLastCutOff && index === calls.length - 1;
    if (!isCutOff) {
      const { name: toolName, id: toolUseId, input } = call;
      ctx.onEvent({ type: "tool_start", step: ctx.step, toolName, toolUseId, input });
    }
    const result = isCutOff
      ? {
          content: `${call.name}: this call was cut off at the output token limit, so it was not run; send it again, smaller`,
          isError: true,
        }
      : await runToolCall(call, ctx.toolsByName, ctx.workspaceRoot, ctx.signal);
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
    });
  }
  return { results, loop: undefined };
}

/** The loop guard: the same call with the same input `maxRepeatedCalls` times in a row stops the run. */
function noteRepeat(ctx: ToolCallContext, call: ToolUseBlock): LimitHit | undefined {
  const max = ctx.maxRepeatedCalls;
  const key = `${call.name} ${stableJson(call.input)}`;
  ctx.guard.repeats = key === ctx.guard.lastCallKey ? ctx.guard.repeats + 1 : 1;
  ctx.guard.lastCallKey = key;
  return max !== undefined && ctx.guard.repeats >= max
    ? { limit: "loop", used: ctx.guard.repeats, max }
    : undefined;
}

/** Runs one tool call; any throw, or an unknown tool, becomes an error result for the model. */
async function runToolCall(
  call: ToolUseBlock,
  toolsByName: ReadonlyMap<string, Tool>,
  workspaceRoot: string,
  signal: AbortSignal,
): Promise<ToolResult> {
  const tool = toolsByName.get(call.name);
  if (tool === undefined) {
    const known = [...toolsByName.keys()].join(", ") || "none";
    return {
      content: `unknown tool "${call.name}"; the tools you have are: ${known}`,
      isError: true,
    };
  }
  try {
    return await tool.execute(call.input, { workspaceRoot, signal });
  } catch (error) {
    if (error instanceof ToolError) return { content: error.message, isError: true };
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${call.name} failed: ${message}`, isError: true };
  }
}
