import {
  type AssistantBlock,
  type Message,
  type ModelClient,
  ModelError,
  type ModelReply,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../model/model-client.js";
import { type Tool, ToolError, type ToolResult } from "../tools/define-tool.js";
import { Budget, type BudgetLimits, type LimitHit } from "./budget.js";
import type { AgentEvent, RunResult, RunStatus } from "./events.js";

/** The reason a run's abort signal carries; anything else counts as a cancellation. */
export type AbortReason = "timeout" | "cancelled";

export type RunAgentOptions = {
  model: ModelClient;
  modelName: string;
  system: string;
  prompt: string;
  tools: readonly Tool[];
  /** `timeoutMs` is enforced by the caller through `signal`; it is here for the limit event. */
  limits: BudgetLimits & { maxOutputTokens: number; timeoutMs?: number };
  workspaceRoot: string;
  /** Aborted with an `AbortReason` on timeout or cancellation. */
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
};

/**
 * The agent loop: call the model, run every tool call of its reply, send all results back, until
 * the model ends its turn or a limit stops it. Limit hits, model failures and aborts end the run
 * with a status; tool failures go back to the model as error results.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const { signal, onEvent } = options;
  const startedAt = performance.now();
  const budget = new Budget(options.limits);
  const toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const toolSpecs = options.tools.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema,
  }));
  const messages: Message[] = [{ role: "user", content: options.prompt }];
  let lastReply: ModelReply | undefined;
  let apiDurationMs = 0;

  const end = (status: RunStatus, error?: string): RunResult => ({
    status,
    steps: budget.steps,
    usage: budget.usage,
    finalText: lastReply === undefined ? "" : textOf(lastReply.content),
    stopReason: lastReply?.stopReason ?? null,
    durationMs: Math.round(performance.now() - startedAt),
    apiDurationMs: Math.round(apiDurationMs),
    error,
  });
  const endAborted = () => {
    if (abortStatus(signal) === "cancelled") return end("cancelled", "the run was cancelled");
    const elapsedMs = Math.round(performance.now() - startedAt);
    const max = options.limits.timeoutMs ?? elapsedMs;
    onEvent({ type: "limit_reached", step: budget.steps, limit: "timeout", used: elapsedMs, max });
    return end("timeout", `timeout reached: ran for ${elapsedMs} ms of ${max} ms`);
  };
  const endAtLimit = (hit: LimitHit, step: number) => {
    onEvent({ type: "limit_reached", step, ...hit });
    return end(hit.limit, `${hit.limit} reached: ${hit.used} of ${hit.max}`);
  };

  for (;;) {
    if (signal.aborted) return endAborted();
    const callHit = budget.beforeCall();
    if (callHit !== undefined) return endAtLimit(callHit, budget.steps);
    const step = budget.steps;

    const callStartedAt = performance.now();
    try {
      lastReply = await options.model.complete(
        {
          model: options.modelName,
          system: options.system,
          messages,
          tools: toolSpecs,
          maxOutputTokens: options.limits.maxOutputTokens,
        },
        { signal, onRetry: (notice) => onEvent({ type: "model_retry", step, notice }) },
      );
    } catch (error) {
      if (signal.aborted) return endAborted();
      if (error instanceof ModelError) return end("error", error.message);
      throw error;
    } finally {
      apiDurationMs += performance.now() - callStartedAt;
    }
    onEvent({
      type: "model_reply",
      step,
      reply: lastReply,
      durationMs: Math.round(performance.now() - callStartedAt),
    });
    messages.push({ role: "assistant", content: lastReply.content });

    const tokenHit = budget.afterReply(lastReply.usage);
    if (tokenHit !== undefined) return endAtLimit(tokenHit, step);

    const calls = lastReply.content.filter(isToolUse);
    if (calls.length === 0) return end("completed");

    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      if (signal.aborted) return endAborted();
      const toolStartedAt = performance.now();
      const result = await runToolCall(call, toolsByName, options.workspaceRoot, signal);
      const block: ToolResultBlock = {
        type: "tool_result",
        tool_use_id: call.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      };
      results.push(block);
      onEvent({
        type: "tool_result",
        step,
        toolName: call.name,
        input: call.input,
        block,
        durationMs: Math.round(performance.now() - toolStartedAt),
        exitCode: result.exitCode,
      });
    }
    if (signal.aborted) return endAborted();
    messages.push({ role: "user", content: results });
  }
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

function abortStatus(signal: AbortSignal): "timeout" | "cancelled" {
  return signal.reason === "timeout" ? "timeout" : "cancelled";
}

function isToolUse(block: AssistantBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}

/** The text blocks of a reply, joined. */
export function textOf(content: readonly AssistantBlock[]): string {
  return content
    .flatMap((block) =>
      block.type === "text" && typeof block.text === "string" ? [block.text] : [],
    )
    .join("\n")
    .trim();
}
