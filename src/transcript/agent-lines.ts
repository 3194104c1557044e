import type { AgentEvent, RunStatus } from "../agent/events.js";
import { totalTokens } from "../model/model-client.js";
import { completedCount } from "../tools/plan-store.js";
import type {
  PlanLineShape,
  TaskNotificationLineShape,
  TaskStartedLineShape,
} from "./line-schemas.js";

// The lines of plans and subagents (`eventLine` adds `parent_tool_use_id` to a subagent's).

type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** The agent's plan after a `todo_write` call (agent-run's own line). */
export function planLine(event: EventOf<"plan_updated">): PlanLineShape {
  return {
    type: "plan",
    step: event.step,
    parent_tool_use_id: null,
    items: event.items.map((item) => ({ content: item.content, status: item.status })),
    completed: completedCount(event.items),
    total: event.items.length,
  };
}

/** A `task` call started a subagent, as the Agent SDK's `task_started` (a local agent). */
export function taskStartedLine(event: EventOf<"subagent_start">): TaskStartedLineShape {
  return {
    type: "system",
    subtype: "task_started",
    task_id: event.toolUseId,
    tool_use_id: event.toolUseId,
    description: event.description,
    prompt: event.prompt,
    task_type: "local_agent",
    spawn_depth: event.depth,
    step: event.step,
    parent_tool_use_id: null,
    tools: [...event.tools],
    max_steps: event.maxSteps,
  };
}

/** The SDK's status of an ended task for each of agent-run's run statuses. */
const TASK_STATUS: Record<RunStatus, TaskNotificationLineShape["status"]> = {
  completed: "completed",
  max_steps: "stopped",
  max_tokens: "stopped",
  max_cost: "stopped",
  timeout: "stopped",
  budget: "stopped",
  cancelled: "stopped",
  skipped: "stopped",
  not_run: "stopped",
  loop: "failed",
  protocol_error: "failed",
  invalid_output: "failed",
  error: "failed",
};

/**
 * A subagent ended, as the Agent SDK's `task_notification`: its output is in this transcript (its
 * lines carry the call's id as `parent_tool_use_id`), and its final text in the call's result.
 */
export function taskNotificationLine(event: EventOf<"subagent_end">): TaskNotificationLineShape {
  const { result } = event;
  const steps = `${result.steps} ${result.steps === 1 ? "step" : "steps"}`;
  return {
    type: "system",
    subtype: "task_notification",
    task_id: event.toolUseId,
    tool_use_id: event.toolUseId,
    status: TASK_STATUS[result.status],
    output_file: "transcript.jsonl",
    summary: `the subagent ended with status ${result.status} after ${steps}`,
    usage: {
      total_tokens: totalTokens(result.usage),
      tool_uses: event.toolUses,
      duration_ms: result.durationMs,
    },
    step: event.step,
    parent_tool_use_id: null,
    run_status: result.status,
    num_turns: result.steps,
    cost_usd: result.costUsd,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}
