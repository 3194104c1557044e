import type {
  Message,
  ModelClient,
  ModelReply,
  Reasoning,
  ToolSpec,
} from "../model/model-client.js";
import type { Tool } from "../tools/define-tool.js";
import type { Budget, BudgetLimits, CostOf } from "./budget.js";
import type { AgentEvent, JsonObject, LimitHit, SubagentOrigin } from "./events.js";
import type { LoopGuard } from "./tool-calls.js";

// What the loop is given (`RunAgentOptions`) and what it keeps between turns (`RunState`).

/** The reason a run's abort signal carries; anything else counts as a cancellation. */
export type AbortReason = "timeout" | "cancelled";

export type RunAgentOptions = {
  model: ModelClient;
  modelName: string;
  system: string;
  prompt: string;
  /** Sent with every request; undefined: the model's default. */
  reasoning?: Reasoning | undefined;
  tools: readonly Tool[];
  /** `timeoutMs` is enforced by the caller through `signal`; it is here for the limit event. */
  limits: BudgetLimits & {
    maxOutputTokens: number;
    timeoutMs?: number;
    maxRepeatedCalls?: number;
    /** Context budget: older tool results are elided from what is sent past it. */
    maxContextTokens?: number;
  };
  workspaceRoot: string;
  /** Aborted with an `AbortReason` on timeout or cancellation. */
  signal: AbortSignal;
  onEvent: (event: AgentEvent) => void;
  /** Prices each reply, for `limits.maxCostUsd` and the run's cost. */
  costOf?: CostOf;
  /** Asked before each model call: a limit outside the task (a batch budget) that stops it. */
  gate?: () => LimitHit | undefined;
  /**
   * Settles once the workspace may be changed (its starting snapshot is taken); tools wait for
   * it, model calls don't. A rejection ends the run with `error`.
   */
  ready?: Promise<void>;
  /** Set when the agent may hand sub-tasks to subagents: the `task` tool is offered. */
  subagents?: SubagentSettings | undefined;
  /** Set when the final reply must be a JSON object valid against a schema (the task's `output_schema`). */
  output?: FinalOutput | undefined;
};

/**
 * How a final reply is judged when the task asks for structured output. `check` is pure: a
 * replay judges the recorded replies again and must come to the same verdicts.
 */
export type FinalOutput = {
  /** The final reply's text judged: its JSON object, or what is wrong with it (for the model). */
  check: (text: string) => OutputVerdict;
  /** Invalid final replies sent back to the model before the run ends with `invalid_output`. */
  maxRetries: number;
};

/** A final reply's text judged: its JSON object, or its problems in words for the model. */
export type OutputVerdict = { ok: true; value: JsonObject } | { ok: false; problems: string };

/** How the `task` tool starts subagents (the task's `subagents:`). */
export type SubagentSettings = {
  /** A subagent's step limit when its call asks for none, and the most it may ask for. */
  maxSteps: number;
  /** How deep subagents nest: at 1, a subagent cannot start subagents of its own. */
  maxDepth: number;
  /** The system prompt of a subagent that has these tools. */
  systemFor: (tools: readonly string[]) => string;
  /** The model the subagent started by this `task` call talks to (a replay's serves the recording). */
  modelFor: (toolUseId: string) => ModelClient;
};

/**
 * Where an agent sits in its run: the top-level agent, or a subagent (`origin`) at `budget.depth`.
 * `taskIds` holds the ids of the run's `task` calls that started a subagent so far.
 */
export type Placement = {
  budget: Budget;
  origin: SubagentOrigin | undefined;
  taskIds: Set<string>;
};

/** What the loop keeps between turns. */
export type RunState = {
  options: RunAgentOptions;
  budget: Budget;
  /** The agent's own model calls so far; its lines' `step`. */
  step: number;
  origin: SubagentOrigin | undefined;
  /** Reports an event of this agent (tagged with `origin` when it is a subagent). */
  emit: (event: AgentEvent) => void;
  toolSpecs: ToolSpec[];
  toolsByName: ReadonlyMap<string, Tool>;
  messages: Message[];
  startedAt: number;
  apiDurationMs: number;
  lastReply: ModelReply | undefined;
  /** The conversation's size in characters, with the system prompt and tools, for the context budget. */
  contextChars: number;
  guard: LoopGuard;
  /** Replies in a row whose call was malformed (a protocol error): `MAX_MALFORMED_IN_A_ROW` ends the run. */
  malformedInARow: number;
  /** A limit a subagent's call reached that stops this agent too (see `LimitHit.depth`). */
  stoppedBy: LimitHit | undefined;
  /** Invalid final replies sent back so far (see `FinalOutput`). */
  outputRetries: number;
};
