import type { PriceTable } from "../model/pricing.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import {
  type AgentDraft,
  addPlainStep,
  addReply,
  callOfLastReply,
  newDraft,
  trajectoryOf,
} from "./atif-agent.js";
import { type ReplyContext, replyStep } from "./atif-reply.js";
import type { AtifTrajectory, JsonObject } from "./atif-types.js";
import { addResult, userText } from "./atif-user-lines.js";
import { type ExportInit, instanceIdOf, lineError, timestampOf } from "./export-init.js";

// A run's transcript as an ATIF trajectory: the system prompt and the task's prompt, then one
// agent step per model reply with its tool calls' results as its observation; each subagent as a
// trajectory embedded in its parent's `subagent_trajectories`, which the `task` call's result
// points at. README's Exports section gives the whole mapping.

/**
 * Where the transcript is (for messages), its init line as `parseExportInit` read it, and the
 * prices its replies are costed with.
 */
export type AtifOptions = { path: string; init: ExportInit; prices: PriceTable };

/** The walk's state: the agents by the `task` call that started them, and how the run ended. */
type Walk = {
  root: AgentDraft;
  subagents: Map<string, AgentDraft>;
  context: ReplyContext;
  checks: JsonObject[];
  result: Extract<TranscriptLine, { type: "result" }> | undefined;
};

/** The trajectory of a transcript's lines (from `readTranscript`); throws `TranscriptError`. */
export function atifTrajectory(
  lines: readonly TranscriptLine[],
  options: AtifOptions,
): AtifTrajectory {
  const { init } = options;
  const root = newDraft(undefined, 0, init.tools);
  const at = timestampOf(init.at, options.path, 1);
  addPlainStep(root, { timestamp: at, source: "system", message: init.task.system });
  addPlainStep(root, { timestamp: at, source: "user", message: init.task.prompt });
  const walk: Walk = {
    root,
    subagents: new Map(),
    context: {
      path: options.path,
      prices: options.prices,
      priced: { provider: init.task.provider?.name ?? "anthropic", model: init.model },
      reasoningEffort: init.task.reasoning?.effort ?? undefined,
    },
    checks: [],
    result: undefined,
  };
  lines.forEach((line, index) => {
    if (index > 0) addLine(walk, line, index + 1);
  });
  root.extra = runExtra(init, walk);
  const { result } = walk;
  if (result !== undefined && result.unpriced_models.length === 0) {
    root.totalCostUsd = result.total_cost_usd;
  }
  return trajectoryOf(root, { sessionId: init.session_id, init });
}

function addLine(walk: Walk, line: TranscriptLine, lineNumber: number): void {
  const { path } = walk.context;
  const agent = agentOf(walk, line, lineNumber);
  const timestamp = timestampOf(line.at, path, lineNumber);
  switch (line.type) {
    case "assistant":
      addReply(agent, replyStep(line, lineNumber, walk.context, timestamp));
      return;
    case "user":
      if (line.tool_name !== undefined) addResult(agent, line, path, lineNumber);
      else {
        const message = userText(line, path, lineNumber);
        addPlainStep(agent, {
          timestamp,
          source: "user",
          message,
          extra: { sent_by: "agent-run" },
        });
      }
      return;
    case "limit_reached":
      addPlainStep(agent, {
        timestamp,
        source: "system",
        message: `limit reached: ${line.limit} (${line.used} of ${line.max})`,
        extra: { limit: line.limit, used: line.used, max: line.max },
      });
      return;
    case "check":
      walk.checks.push({
        name: line.name,
        kind: line.kind,
        passed: line.passed,
        message: line.message,
      });
      return;
    case "result":
      walk.result = line;
      return;
    case "plan":
      return;
    case "system":
      addSystemLine(walk, agent, line, lineNumber, timestamp);
      return;
  }
}

type SystemLine = Extract<TranscriptLine, { type: "system" }>;

function addSystemLine(
  walk: Walk,
  agent: AgentDraft,
  line: SystemLine,
  lineNumber: number,
  timestamp: string,
): void {
  const { path } = walk.context;
  switch (line.subtype) {
    case "init":
      throw lineError(path, lineNumber, "a second init line");
    case "api_retry":
      return;
    case "api_error":
      addPlainStep(agent, {
        timestamp,
        source: "system",
        message: `the model call failed: ${line.error}`,
        extra: { error_status: line.error_status },
      });
      return;
    case "compact_boundary":
      addPlainStep(agent, {
        timestamp,
        source: "system",
        message: `agent-run trimmed the context: old tool results replaced by a placeholder (about ${line.compact_metadata.pre_tokens} tokens before)`,
        // ATIF's convention for a step that changes the context (RFC 0001, section VII).
        extra: { context_management: { type: "pruning", boundary: "truncate" } },
      });
      return;
    case "task_started":
      startSubagent(walk, agent, line, lineNumber, timestamp);
      return;
    case "task_notification":
      endSubagent(walk, line, lineNumber);
      return;
  }
}

/**
 * The agent a line belongs to: the subagent its `parent_tool_use_id` names, which must have
 * started before it, else the top-level agent.
 */
function agentOf(walk: Walk, line: TranscriptLine, lineNumber: number): AgentDraft {
  const parent: unknown = Reflect.get(line, "parent_tool_use_id");
  if (parent === null || parent === undefined) return walk.root;
  const found = typeof parent === "string" ? walk.subagents.get(parent) : undefined;
  if (found !== undefined) return found;
  throw lineError(
    walk.context.path,
    lineNumber,
    `parent_tool_use_id ${JSON.stringify(parent)} names no subagent started before it`,
  );
}

function startSubagent(
  walk: Walk,
  parent: AgentDraft,
  line: Extract<SystemLine, { subtype: "task_started" }>,
  lineNumber: number,
  timestamp: string,
): void {
  const id = line.tool_use_id;
  const fail = (problem: string) => lineError(walk.context.path, lineNumber, problem);
  if (walk.subagents.has(id)) throw fail(`a second subagent of the task call "${id}"`);
  if (callOfLastReply(parent, id)?.function_name !== "task") {
    throw fail(`a subagent of the call "${id}", which is no task call of the reply before it`);
  }
  const subagent = newDraft(id, line.spawn_depth, line.tools);
  subagent.extra = {
    description: line.description,
    status: "interrupted",
    spawn_depth: line.spawn_depth,
  };
  addPlainStep(subagent, { timestamp, source: "user", message: line.prompt });
  walk.subagents.set(id, subagent);
  parent.subagents.push(subagent);
}

function endSubagent(
  walk: Walk,
  line: Extract<SystemLine, { subtype: "task_notification" }>,
  lineNumber: number,
): void {
  const subagent = walk.subagents.get(line.tool_use_id);
  if (subagent === undefined) {
    throw lineError(
      walk.context.path,
      lineNumber,
      `the end of a subagent "${line.tool_use_id}" that never started`,
    );
  }
  subagent.extra = { ...subagent.extra, status: line.run_status };
  if (line.cost_usd !== null) subagent.totalCostUsd = line.cost_usd;
}

/** The root's `extra`: the task, how the run ended, its checks. */
function runExtra(init: ExportInit, walk: Walk): JsonObject {
  const { result } = walk;
  return {
    task: init.task.name,
    ...(init.task.file === undefined ? {} : { task_file: init.task.file }),
    instance_id: instanceIdOf(init),
    status: result?.status ?? "interrupted",
    ...(result?.errors === undefined ? {} : { errors: result.errors }),
    checks: walk.checks,
  };
}
