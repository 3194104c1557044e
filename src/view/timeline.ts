import { totalTokens, usageOf } from "../model/model-client.js";
import { estimateCostUsd, type PricedModel, type PriceTable } from "../model/pricing.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import { noticeText, replyBlocks, toolResultOf } from "./timeline-blocks.js";
import type { TextClipper } from "./view-bounds.js";
import type { ViewAgent, ViewEvent, ViewStep, ViewToolCall } from "./view-data.js";

/** An agent as the lines are walked: its steps so far, and what waits for its next step. */
type AgentState = {
  agent: ViewAgent;
  /** Retries, trims and errors written before the reply they belong to. */
  pending: ViewEvent[];
  calls: Map<string, ViewToolCall>;
};

/** What the walk needs besides the lines. */
export type TimelineContext = {
  clip: TextClipper;
  prices: PriceTable;
  /** The run's provider preset and model: each reply is priced as that. */
  priced: PricedModel;
  maxSubagentDepth: number;
};

/**
 * The agents of a transcript, the top-level one first: each reply becomes a step holding its
 * blocks, each result is matched to its call, and each subagent is nested under the `task` call
 * that started it (at most `maxSubagentDepth` deep). Lines of a subagent that is unknown, deeper
 * than the bound or started twice are counted in `linesLeftOut`, never attached elsewhere.
 */
export function buildAgents(
  lines: readonly TranscriptLine[],
  context: TimelineContext,
): { agent: ViewAgent; linesLeftOut: number } {
  const top = newAgent("", "", 0);
  const agents = new Map<string, AgentState>([["", top]]);
  let linesLeftOut = 0;
  for (const line of lines) {
    const owner = agents.get(ownerOf(line));
    if (owner === undefined) {
      linesLeftOut += 1;
      continue;
    }
    if (!walkLine(line, owner, agents, context)) linesLeftOut += 1;
  }
  for (const state of agents.values()) state.agent.trailing.push(...state.pending);
  return { agent: top.agent, linesLeftOut };
}

/** Adds one line to its agent; false when it was left out. */
function walkLine(
  line: TranscriptLine,
  owner: AgentState,
  agents: Map<string, AgentState>,
  context: TimelineContext,
): boolean {
  const { clip } = context;
  switch (line.type) {
    case "assistant":
      addStep(owner, line, context);
      return true;
    case "user": {
      const found = toolResultOf(line, clip);
      if (found === undefined) {
        addAfter(owner, { kind: "notice", text: clip(noticeText(line.message.content)) });
        return true;
      }
      const call = owner.calls.get(found.callId);
      if (call === undefined) return false;
      call.result = found.result;
      const step = owner.agent.steps.at(-1);
      if (step !== undefined) step.toolsMs += found.result.durationMs ?? 0;
      return true;
    }
    case "plan":
      addAfter(owner, {
        kind: "plan",
        completed: line.completed,
        total: line.total,
        items: line.items.map((item) => ({ content: clip(item.content), status: item.status })),
      });
      return true;
    case "limit_reached":
      addAfter(owner, { kind: "limit", limit: line.limit, used: line.used, max: line.max });
      return true;
    case "system":
      return walkSystemLine(line, owner, agents, context);
    default:
      // init, check and result lines are read by the timeline's caller.
      return true;
  }
}

function walkSystemLine(
  line: Extract<TranscriptLine, { type: "system" }>,
  owner: AgentState,
  agents: Map<string, AgentState>,
  context: TimelineContext,
): boolean {
  const { clip } = context;
  switch (line.subtype) {
    case "api_retry":
      owner.pending.push({
        kind: "retry",
        attempt: line.attempt,
        maxRetries: line.max_retries,
        delayMs: line.retry_delay_ms,
        status: line.error_status,
        message: clip(`${line.error}: ${line.error_message}`),
      });
      return true;
    case "api_error":
      owner.pending.push({
        kind: "api_error",
        status: line.error_status,
        message: clip(line.error),
      });
      return true;
    case "compact_boundary":
      owner.pending.push({
        kind: "trim",
        removed: typeof line.removed_tool_results === "number" ? line.removed_tool_results : null,
        preTokens: line.compact_metadata.pre_tokens,
        postTokens: line.compact_metadata.post_tokens ?? null,
      });
      return true;
    case "task_started":
      return startSubagent(line, owner, agents, context);
    case "task_notification": {
      const state = agents.get(line.tool_use_id);
      if (state === undefined) return false;
      state.agent.end = {
        status: line.run_status,
        turns: line.num_turns,
        tokens: line.usage.total_tokens,
        costUsd: line.cost_usd,
      };
      return true;
    }
    default:
      return true;
  }
}

/** Nests a subagent under the `task` call that started it; false when it cannot be. */
function startSubagent(
  line: Extract<TranscriptLine, { subtype: "task_started" }>,
  owner: AgentState,
  agents: Map<string, AgentState>,
  context: TimelineContext,
): boolean {
  const id = line.tool_use_id;
  const depth = owner.agent.depth + 1;
  const call = owner.calls.get(id);
  // An id seen before would nest an agent inside itself; a call not found has nowhere to go.
  if (agents.has(id) || call === undefined || depth > context.maxSubagentDepth) return false;
  const state = newAgent(id, context.clip(line.description).text, depth);
  call.subagent = state.agent;
  agents.set(id, state);
  return true;
}

function addStep(
  owner: AgentState,
  line: Extract<TranscriptLine, { type: "assistant" }>,
  context: TimelineContext,
): void {
  const { blocks, calls } = replyBlocks(line.message.content, context.clip);
  const usage = usageOf(line.message.usage);
  const step: ViewStep = {
    step: line.step,
    durationMs: line.duration_ms,
    toolsMs: 0,
    usage: {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cacheWrite: usage.cacheCreationInputTokens,
      cacheRead: usage.cacheReadInputTokens,
    },
    tokens: totalTokens(usage),
    costUsd: estimateCostUsd(context.prices, context.priced, usage),
    stopReason: line.message.stop_reason,
    before: owner.pending.splice(0),
    blocks,
    after: [],
  };
  owner.agent.steps.push(step);
  owner.calls.clear();
  for (const call of calls) owner.calls.set(call.id, call);
}

/** An event that follows a step (a plan, a limit, a notice); before any step, it waits. */
function addAfter(owner: AgentState, event: ViewEvent): void {
  const step = owner.agent.steps.at(-1);
  if (step === undefined) owner.pending.push(event);
  else step.after.push(event);
}

function newAgent(id: string, description: string, depth: number): AgentState {
  return {
    agent: { id, description, depth, steps: [], trailing: [], end: null },
    pending: [],
    calls: new Map(),
  };
}

/** The agent a line belongs to: its `task` call's id, or "" for the top-level agent. */
function ownerOf(line: TranscriptLine): string {
  const parent = "parent_tool_use_id" in line ? line.parent_tool_use_id : undefined;
  return typeof parent === "string" ? parent : "";
}
