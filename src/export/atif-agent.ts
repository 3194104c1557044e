import { addUsage, type Usage, ZERO_USAGE } from "../model/model-client.js";
import { promptTokens, type ReplyStep } from "./atif-reply.js";
import { toolDefinitions } from "./atif-tools.js";
import {
  ATIF_VERSION,
  type AtifAgentStep,
  type AtifObservationResult,
  type AtifPlainStep,
  type AtifStep,
  type AtifTrajectory,
  type JsonObject,
} from "./atif-types.js";
import type { ExportInit } from "./export-init.js";

// One agent's trajectory as the transcript is walked (the top-level agent's or a subagent's),
// and the ATIF trajectory it becomes, its subagents' embedded in it.

/** An agent's steps so far, what it used, and the subagents its `task` calls started. */
export type AgentDraft = {
  /** The `task` call that started it; undefined for the top-level agent. */
  taskCallId: string | undefined;
  /** 0 for the top-level agent, its spawn depth for a subagent. */
  depth: number;
  /** The tools it was offered, by name. */
  toolNames: readonly string[];
  steps: AtifStep[];
  /** Its last reply: the tool results and subagents that follow belong to it. */
  lastReply: AtifAgentStep | undefined;
  usage: Usage;
  /** The cost the transcript records for the agent (its subagents' included), when it does. */
  totalCostUsd: number | undefined;
  subagents: AgentDraft[];
  extra: JsonObject;
};

/** A new agent, with no step yet. */
export function newDraft(
  taskCallId: string | undefined,
  depth: number,
  toolNames: readonly string[],
): AgentDraft {
  return {
    taskCallId,
    depth,
    toolNames,
    steps: [],
    lastReply: undefined,
    usage: ZERO_USAGE,
    totalCostUsd: undefined,
    subagents: [],
    extra: {},
  };
}

/** Adds a system or user step (a prompt, or agent-run's note of a limit or a trim). */
export function addPlainStep(draft: AgentDraft, step: Omit<AtifPlainStep, "step_id">): void {
  draft.steps.push({ step_id: draft.steps.length + 1, ...step });
}

/** Adds a reply's step; the results that follow belong to it. */
export function addReply(draft: AgentDraft, reply: ReplyStep): void {
  const step: AtifAgentStep = { step_id: draft.steps.length + 1, ...reply.step };
  draft.steps.push(step);
  draft.lastReply = step;
  draft.usage = addUsage(draft.usage, reply.usage);
}

/** The call of the agent's last reply with this id, or undefined when that reply made none. */
export function callOfLastReply(draft: AgentDraft, id: string) {
  return draft.lastReply?.tool_calls?.find((call) => call.tool_call_id === id);
}

/**
 * Adds a tool's result to the last reply's observation (the caller has checked that the reply
 * made the call). A `task` call's result points at the subagent it started.
 */
export function addToolResult(draft: AgentDraft, result: AtifObservationResult): void {
  const reply = draft.lastReply;
  if (reply === undefined) return;
  const started = draft.subagents.some((subagent) => subagent.taskCallId === result.source_call_id);
  const withRef = started
    ? { ...result, subagent_trajectory_ref: [{ trajectory_id: result.source_call_id }] }
    : result;
  reply.observation = { results: [...(reply.observation?.results ?? []), withRef] };
}

/** What every trajectory of a run shares. */
export type RunInfo = { sessionId: string; init: ExportInit };

/** The agent's ATIF trajectory, its subagents' embedded (theirs in theirs). */
export function trajectoryOf(draft: AgentDraft, run: RunInfo): AtifTrajectory {
  const { usage } = draft;
  const subagents = draft.subagents.map((subagent) => trajectoryOf(subagent, run));
  return {
    schema_version: ATIF_VERSION,
    session_id: run.sessionId,
    ...(draft.taskCallId === undefined ? {} : { trajectory_id: draft.taskCallId }),
    agent: {
      name: "agent-run",
      version: run.init.agent_run_version,
      model_name: run.init.model,
      tool_definitions: toolDefinitions(run.init, draft.toolNames, draft.depth),
    },
    steps: draft.steps,
    final_metrics: {
      total_prompt_tokens: promptTokens(usage),
      total_completion_tokens: usage.outputTokens,
      total_cached_tokens: usage.cacheReadInputTokens,
      ...(draft.totalCostUsd === undefined ? {} : { total_cost_usd: draft.totalCostUsd }),
      total_steps: draft.steps.length,
      extra: { cache_creation_input_tokens: usage.cacheCreationInputTokens },
    },
    extra: draft.extra,
    ...(subagents.length === 0 ? {} : { subagent_trajectories: subagents }),
  };
}
