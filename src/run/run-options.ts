import type { AgentEvent, LimitHit } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import type { ModelClient } from "../model/model-client.js";
import type { PricedModel, PriceTable } from "../model/pricing.js";
import type { Redactor } from "../redact.js";
import type { Task } from "../task/schema.js";
import type { McpRecording } from "../tools/mcp-tools.js";
import type { Sandbox } from "../tools/sandbox.js";
import type { RunOrigin } from "../transcript/init-line.js";
import type { EarlierAttempt, Trial } from "../transcript/trials.js";

/** Everything one task run needs, already resolved by the command line. */
export type RunTaskOptions = {
  task: Task;
  /** The model id after `--model`, the task, `ANTHROPIC_MODEL` and the default. */
  modelName: string;
  model: ModelClient;
  /** The model of the subagent a `task` call starts; default `model` (a replay's serves the recording). */
  subagentModel?: ((toolUseId: string) => ModelClient) | undefined;
  /** The batch's output folder; in place it may sit inside the workspace, and is not content. */
  outDir: string;
  /** The run folder; default `outDir/<task name>`, or `outDir/<task name>/trial-<n>` for a trial. */
  runDir?: string;
  /** Which of its task's trials this run is; undefined when the task has one. */
  trial?: Trial | undefined;
  /** The run's attempt at its trial (default 1), after `earlierAttempts` failed on infrastructure. */
  attempt?: number;
  earlierAttempts?: readonly EarlierAttempt[];
  inPlace: boolean;
  offline: boolean;
  prices: PriceTable;
  /** The environment commands start from (see `buildCommandEnv`); the task's env is added. */
  baseEnv: Record<string, string>;
  /** `--sandbox`: overrides the task's own. */
  sandbox?: Sandbox | undefined;
  /** Aborted when the batch is cancelled (Ctrl-C, SIGTERM). */
  signal: AbortSignal;
  /** Cancels the checks; default `signal` (a replay ends its agent through `signal`, not its checks). */
  checkSignal?: AbortSignal;
  /** A limit from outside the task (the batch budget), asked before each model call. */
  gate?: () => LimitHit | undefined;
  onEvent?: (event: AgentEvent) => void;
  /** Called with each check's result, after the agent stopped. */
  onCheck?: (result: CheckResult) => void;
  /** Hides secret values in everything written (transcript, summary, patch). */
  redact?: Redactor;
  /**
   * A fork's or resume's recorded steps (1..`steps`), priced as the model that made them; the
   * later steps are priced as `modelName` on the task's provider. Unset: every step is the latter.
   */
  recordedSteps?: RecordedSteps | undefined;
  /** Set for replays, forks and resumes: recorded in the init line and `summary.json`. */
  origin?: RunOrigin;
  /** A replay's, fork's or resume's recorded MCP tools and results (see `McpRecording`). */
  mcpRecording?: McpRecording;
  /** Files in the run folder to keep when it is cleared (a resumed run's earlier transcript). */
  preserve?: readonly string[];
};

/** The first `steps` steps of a run, served from a recording made on `provider`/`model`. */
export type RecordedSteps = PricedModel & { steps: number };

/** What a run's summary takes from its options: who ran what, from where, as which trial. */
export type RunOptionsOfSummary = Pick<
  RunTaskOptions,
  "task" | "modelName" | "prices" | "origin" | "trial" | "attempt" | "earlierAttempts"
>;
