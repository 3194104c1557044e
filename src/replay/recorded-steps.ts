import { z } from "zod";
import type { ApiMessage } from "../model/model-client.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import { isMcpToolName, type RecordedMcpCall } from "./recorded-mcp.js";

// A transcript's steps, agent by agent: the top-level agent's, and each subagent's (its lines
// carry the `task` call that started it as `parent_tool_use_id`).

/**
 * One recorded tool result, as the divergence check compares it. `isInterrupted`: the run was
 * cancelled or timed out while the call ran, so its result was cut short.
 */
export type RecordedToolResult = {
  toolName: string;
  content: string;
  isError: boolean;
  isInterrupted: boolean;
  /** A replay served it from the recording (an MCP call): it did not run again. */
  isFromRecording?: boolean;
};

/**
 * One agent's recorded steps: its replies in order, and its tool results by step (index 0 is step
 * 1). `rootStep`: the top-level agent's step its `task` call belongs to (the step itself for the
 * top-level agent).
 */
export type RecordedAgent = {
  replies: ApiMessage[];
  toolResults: RecordedToolResult[][];
  rootStep: number | undefined;
};

/** The recorded steps of every agent of a run, and how the run ended. */
export type RecordedAgents = {
  root: RecordedAgent;
  subagents: Map<string, RecordedAgent>;
  /** The results of every agent's MCP calls, served again by `tool_use` id instead of a server. */
  mcpCalls: RecordedMcpCall[];
  /** The closing line's status and errors; undefined for a run that was killed. */
  ending: { status: string; errors: string[] } | undefined;
};

const ToolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().optional(),
  content: z.string(),
  is_error: z.boolean().optional(),
});

/** Sorts a transcript's replies and tool results by agent and step. */
export function recordedAgents(lines: readonly TranscriptLine[]): RecordedAgents {
  const root: RecordedAgent = { replies: [], toolResults: [], rootStep: undefined };
  const subagents = new Map<string, RecordedAgent>();
  const agentOf = (parent: string | null | undefined): RecordedAgent => {
    if (parent === null || parent === undefined) return root;
    const found = subagents.get(parent) ?? { replies: [], toolResults: [], rootStep: undefined };
    subagents.set(parent, found);
    return found;
  };
  const mcpCalls: RecordedMcpCall[] = [];
  let ending: RecordedAgents["ending"];
  for (const line of lines) {
    if (line.type === "system" && line.subtype === "task_started") {
      const parent = line.parent_tool_use_id;
      const rootStep = parent === null ? line.step : subagents.get(parent)?.rootStep;
      agentOf(line.tool_use_id).rootStep = rootStep;
    }
    if (line.type === "assistant") {
      agentOf(line.parent_tool_use_id).replies[line.step - 1] = toApiMessage(line.message);
    }
    // A `not_run` line closes a call the run ended before: the call never ran.
    if (line.type === "user" && line.tool_name !== undefined && line.not_run !== true) {
      const block = ToolResultBlockSchema.safeParse(line.message.content[0]);
      if (!block.success) continue;
      const agent = agentOf(line.parent_tool_use_id);
      const step = agent.toolResults[line.step - 1] ?? [];
      agent.toolResults[line.step - 1] = step;
      const { content, tool_use_id: toolUseId } = block.data;
      const isError = block.data.is_error === true;
      step.push({
        toolName: line.tool_name,
        content,
        isError,
        isInterrupted: line.interrupted === true,
      });
      if (isMcpToolName(line.tool_name) && toolUseId !== undefined) {
        const rootStep = agent === root ? line.step : (agent.rootStep ?? line.step);
        mcpCalls.push({ toolUseId, step: rootStep, content, isError });
      }
    }
    if (line.type === "result") ending = { status: line.status, errors: errorsOf(line) };
  }
  for (const agent of [root, ...subagents.values()]) {
    agent.replies = agent.replies.filter((reply) => reply !== undefined);
  }
  return { root, subagents, mcpCalls, ending };
}

function toApiMessage(
  message: { role: "assistant"; content: Array<{ type: string }> } & Record<string, unknown>,
): ApiMessage {
  return {
    ...message,
    id: typeof message.id === "string" ? message.id : "msg_recorded",
    type: "message",
    role: "assistant",
    model: typeof message.model === "string" ? message.model : "recorded",
    content: message.content,
    stop_reason: typeof message.stop_reason === "string" ? message.stop_reason : null,
    usage: typeof message.usage === "object" && message.usage !== null ? { ...message.usage } : {},
  };
}

function errorsOf(line: Record<string, unknown>): string[] {
  const errors = line.errors;
  return Array.isArray(errors)
    ? errors.filter((error): error is string => typeof error === "string")
    : [];
}

/**
 * The model calls a replay serves through the top-level agent's step `step`: those steps, and the
 * calls of the subagents their `task` calls started.
 */
export function recordedCallsThrough(run: RecordedCalls, step: number): number {
  let calls = Math.min(step, run.replies.length);
  for (const agent of run.subagents.values()) {
    if (agent.rootStep !== undefined && agent.rootStep <= step) calls += agent.replies.length;
  }
  return calls;
}

/** Every recorded reply: the top-level agent's and each subagent's. */
export function allRecordedReplies(run: RecordedCalls): ApiMessage[] {
  return [...run.replies, ...[...run.subagents.values()].flatMap((agent) => agent.replies)];
}

/** A recorded run's replies: the top-level agent's, and each subagent's. */
type RecordedCalls = {
  replies: readonly ApiMessage[];
  subagents: ReadonlyMap<string, RecordedAgent>;
};
