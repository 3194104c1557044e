// The ATIF v1.7 trajectory an export writes (Harbor's Agent Trajectory Interchange Format, its
// models in `src/harbor/models/trajectories/` and docs/rfcs/0001-trajectory-format.md): only the
// fields agent-run fills in. Harbor forbids fields it does not know, so nothing else is written.

/** The format version every trajectory states. */
export const ATIF_VERSION = "ATIF-v1.7";

/** Any JSON object: ATIF's `extra` fields and tool arguments. */
export type JsonObject = Record<string, unknown>;

/** A tool as OpenAI's function calling describes it (ATIF's `tool_definitions` entries). */
export type AtifToolDefinition = {
  type: "function";
  function: { name: string; description?: string; parameters?: JsonObject };
};

type AtifAgent = {
  name: string;
  version: string;
  model_name: string;
  tool_definitions: AtifToolDefinition[];
};

export type AtifToolCall = {
  tool_call_id: string;
  function_name: string;
  arguments: JsonObject;
  extra?: JsonObject;
};

/** Points at an embedded subagent trajectory by its `trajectory_id`. */
type AtifSubagentRef = { trajectory_id: string; extra?: JsonObject };

export type AtifObservationResult = {
  source_call_id: string;
  content: string;
  subagent_trajectory_ref?: AtifSubagentRef[];
  extra?: JsonObject;
};

export type AtifMetrics = {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_usd?: number;
  extra?: JsonObject;
};

/** A system prompt, a user message, or a note from agent-run (a limit, a context trim). */
export type AtifPlainStep = {
  step_id: number;
  timestamp: string;
  source: "system" | "user";
  message: string;
  extra?: JsonObject;
};

/** One model reply: its text, reasoning and tool calls, the calls' results, its usage. */
export type AtifAgentStep = {
  step_id: number;
  timestamp: string;
  source: "agent";
  model_name?: string;
  reasoning_effort?: string;
  message: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  metrics: AtifMetrics;
  extra?: JsonObject;
};

export type AtifStep = AtifPlainStep | AtifAgentStep;

type AtifFinalMetrics = {
  total_prompt_tokens: number;
  total_completion_tokens: number;
  total_cached_tokens: number;
  total_cost_usd?: number;
  total_steps: number;
  extra?: JsonObject;
};

export type AtifTrajectory = {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  trajectory_id?: string;
  agent: AtifAgent;
  steps: AtifStep[];
  notes?: string;
  final_metrics: AtifFinalMetrics;
  extra?: JsonObject;
  subagent_trajectories?: AtifTrajectory[];
};
