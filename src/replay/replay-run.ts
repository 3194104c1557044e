import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, LimitHit } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import { ConfigError, messageOf } from "../errors.js";
import { type ModelClient, ModelError } from "../model/model-client.js";
import type { PriceTable } from "../model/pricing.js";
import type { Redactor } from "../redact.js";
import type { TaskSummary } from "../report/summary.js";
import { runTask } from "../run/run-task.js";
import type { Limits, Task } from "../task/schema.js";
import type { McpRecording, RecordedMcpResult } from "../tools/mcp-tools.js";
import type { RunOrigin } from "../transcript/init-line.js";
import { hashWorkspace } from "../workspace/hash.js";
import { createDivergenceTracker, type DivergenceReport } from "./divergence.js";
import { DIVERGENCE_FILE, divergenceJson } from "./divergence-json.js";
import type { RecordedRun } from "./recorded-run.js";
import { allRecordedReplies, recordedCallsThrough } from "./recorded-steps.js";
import { createSplicedModel } from "./spliced-model.js";

export type ReplayKind = "replay" | "fork" | "resume";

export type ReplayOptions = {
  kind: ReplayKind;
  recorded: RecordedRun;
  /** The run folder to write. */
  runDir: string;
  /** Files in `runDir` to keep (a resumed run's earlier transcript). */
  preserve?: readonly string[];
  /**
   * A task file given with `--task`. A replay takes only its checks (to re-grade); a fork or
   * resume takes its settings too (prompt, system prompt, model, provider, limits, tools).
   */
  task: Task | undefined;
  /** Steps served from the recording. */
  untilStep: number;
  /** The model that takes over after `untilStep` (fork, resume); none for a plain replay. */
  next: { model: ModelClient; name: string } | undefined;
  /** Whether `next` plays scripted replies (recorded in the init line). */
  isOffline: boolean;
  limits: Partial<Limits>;
  prices: PriceTable;
  baseEnv: Record<string, string>;
  signal: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  onCheck?: (check: CheckResult) => void;
  redact?: Redactor;
};

export type ReplayOutcome = { summary: TaskSummary; divergence: DivergenceReport };

/**
 * Re-runs a recorded run offline: the recording plays the model, every tool call runs again in a
 * fresh copy of the recorded workspace, and the results are compared with the recorded ones.
 * With `next`, a fork or resume goes on with that model after `untilStep`. Call `checkWorkspace`
 * first.
 */
export async function replayRun(options: ReplayOptions): Promise<ReplayOutcome> {
  const { recorded } = options;
  const isPartial = options.next === undefined && options.untilStep < recorded.replies.length;
  const task = replayedTask(options, isPartial);
  const ending = new AbortController();
  // Model calls served so far, the subagents' included (see `recordedTimeout`).
  let served = 0;
  const counted = (inner: ModelClient): ModelClient => ({
    complete: async (request, completeOptions) => {
      served += 1;
      return inner.complete(request, completeOptions);
    },
  });
  const tracker = divergenceTracker(options, task);
  const model = createSplicedModel({
    recorded: recorded.replies,
    untilStep: options.untilStep,
    next: options.next?.model,
    onRecordingEnd: () => endLikeTheRecording(recorded, ending, options.untilStep),
    source: recorded.path,
  });
  const summary = await runTask({
    task,
    modelName: options.next?.name ?? recorded.model,
    model: counted(model),
    subagentModel: (toolUseId) => counted(subagentModel(options, toolUseId)),
    outDir: join(options.runDir, ".."),
    runDir: options.runDir,
    ...(options.preserve === undefined ? {} : { preserve: options.preserve }),
    inPlace: false,
    offline: options.next === undefined || options.isOffline,
    prices: options.prices,
    ...recordedSteps(options),
    baseEnv: options.baseEnv,
    signal: AbortSignal.any([options.signal, ending.signal]),
    checkSignal: options.signal,
    gate:
      options.next === undefined && !isPartial
        ? recordedTimeout(recorded, () => served, task)
        : () => undefined,
    onEvent: (event) => {
      tracker.onEvent(event);
      options.onEvent?.(event);
    },
    ...(options.onCheck === undefined ? {} : { onCheck: options.onCheck }),
    ...(options.redact === undefined ? {} : { redact: options.redact }),
    origin: originOf(options),
    // A trial's replay, fork or resume is the same trial of its task; a resume, the same attempt.
    trial: recorded.trial,
    ...(options.kind === "resume"
      ? { attempt: recorded.attempt, earlierAttempts: recorded.earlierAttempts }
      : {}),
    mcpRecording: mcpRecording(recorded, options.untilStep, options.next !== undefined),
  });
  const divergence = tracker.report({
    recorded: recorded.workspacePath,
    replayed: summary.workspace,
  });
  const redact = options.redact ?? ((text: string) => text);
  await writeFile(
    join(summary.runDir, DIVERGENCE_FILE),
    redact(`${JSON.stringify(divergenceJson(divergence), null, 2)}\n`),
  );
  return { summary, divergence };
}

/** Forked or resumed: the recorded steps cost what they cost the recorded run. */
function recordedSteps(options: ReplayOptions) {
  const { recorded } = options;
  if (options.next === undefined) return {};
  const steps = Math.min(options.untilStep, recorded.replies.length);
  return { recordedSteps: { provider: recorded.task.provider.name, model: recorded.model, steps } };
}

/** Compares the replay's tool results with the recording's, masking timings in every command's output. */
function divergenceTracker(options: ReplayOptions, task: Task) {
  const { recorded } = options;
  const commandTools = [...recorded.task.commandTools, ...task.commandTools];
  const names = commandTools.map((tool) => tool.name);
  return createDivergenceTracker(recorded, options.untilStep, names);
}

/** Where the run comes from, for its init line and `summary.json`. */
function originOf(options: ReplayOptions): RunOrigin {
  const { recorded } = options;
  return {
    kind: options.kind,
    transcript: recorded.path,
    sessionId: recorded.sessionId,
    steps: options.untilStep,
  };
}

/**
 * The recorded MCP calls of steps 1..`untilStep`, served again by `tool_use` id, and the tools the
 * servers offered. A replay starts no server; a fork or resume (`isLive`) starts the task's
 * servers for the calls made after the recording.
 */
function mcpRecording(recorded: RecordedRun, untilStep: number, isLive: boolean): McpRecording {
  const results = new Map<string, RecordedMcpResult[]>();
  for (const call of recorded.mcpCalls) {
    if (call.step > untilStep) continue;
    const served = results.get(call.toolUseId) ?? [];
    served.push({ content: call.content, isError: call.isError });
    results.set(call.toolUseId, served);
  }
  return {
    results,
    tools: recorded.mcpTools,
    isLive,
  };
}

/** The task as replayed: recorded, re-graded with `--task`'s checks, or (fork, resume) `--task` itself. */
function replayedTask(options: ReplayOptions, isPartial: boolean): Task {
  const { recorded } = options;
  const base =
    options.task === undefined
      ? recorded.task
      : options.kind === "replay"
        ? { ...recorded.task, checks: options.task.checks }
        : { ...options.task, name: recorded.task.name };
  // A partial replay stops after step K: its model calls, and those of its steps' subagents.
  const limits = {
    ...base.limits,
    ...options.limits,
    ...(isPartial ? { maxSteps: recordedCallsThrough(recorded, options.untilStep) } : {}),
  };
  return { ...base, workspace: recorded.task.workspace, limits };
}

/**
 * A recorded run that timed out is replayed to the same point: once its replies (its subagents'
 * too) are all served, the next call is refused as the timeout (the replayed tools may have run
 * faster). The gate asked before every model call; the replies are counted once, here.
 */
function recordedTimeout(
  recorded: RecordedRun,
  served: () => number,
  task: Task,
): () => LimitHit | undefined {
  if (recorded.ending?.status !== "timeout") return () => undefined;
  const replies = allRecordedReplies(recorded).length;
  return () =>
    served() < replies
      ? undefined
      : { limit: "timeout", used: task.limits.timeoutMs, max: task.limits.timeoutMs };
}

/**
 * Refuses a workspace whose content changed since the run, unless allowed; returns the mismatch
 * to warn about. The hash covers the files agent-run tracks (`.gitignore`d files are left out).
 */
export async function checkWorkspace(
  recorded: RecordedRun,
  isAllowed: boolean,
): Promise<string | undefined> {
  // A run that never started (not run, cancelled first) recorded no starting state: it starts
  // from the workspace as it is now, as a new run would.
  if (recorded.contentHash === null && recorded.replies.length === 0) return undefined;
  let now: string;
  try {
    now = await hashWorkspace(recorded.task.workspace);
  } catch (error) {
    throw new ConfigError(
      `${recorded.path}: cannot read the recorded workspace ${recorded.task.workspace}: ${messageOf(error)}`,
    );
  }
  if (now === recorded.contentHash) return undefined;
  const mismatch = `the workspace ${recorded.task.workspace} changed since the run (recorded ${recorded.contentHash ?? "no hash"}, now ${now})`;
  if (!isAllowed) {
    throw new ConfigError(
      `${recorded.path}: ${mismatch}; replaying it would not reproduce the run. Restore it (in a git checkout, git status / git diff there shows what changed), or pass --allow-changed-workspace to replay anyway`,
    );
  }
  return mismatch;
}

/**
 * The model of the subagent a replayed `task` call starts: its recorded replies, then (a fork, a
 * resume) the model that goes on. A call the recording never made has no recorded replies.
 */
function subagentModel(options: ReplayOptions, toolUseId: string): ModelClient {
  const replies = options.recorded.subagents.get(toolUseId)?.replies ?? [];
  return createSplicedModel({
    recorded: replies,
    untilStep: replies.length,
    next: options.next?.model,
    onRecordingEnd: () =>
      new ModelError(
        `the recording has no reply for step ${replies.length + 1} of the subagent of task call ${toolUseId}`,
      ),
    source: options.recorded.path,
  });
}

/** When the recording runs out, the replay ends as the recorded run did at that point. */
function endLikeTheRecording(
  recorded: RecordedRun,
  ending: AbortController,
  untilStep: number,
): ModelError {
  const status = recorded.ending?.status;
  if (status === "cancelled") ending.abort("cancelled");
  if (status === "error")
    return new ModelError(
      recorded.ending?.errors[0] ?? "the recorded run ended with an error here",
    );
  const why =
    recorded.ending === undefined
      ? "the run was killed there; `agent-run resume` continues it"
      : `it ended with status ${status ?? "unknown"}`;
  return new ModelError(`the recording has no reply for step ${untilStep + 1} (${why})`);
}
