import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import { ConfigError } from "../errors.js";
import { type ModelClient, ModelError } from "../model/model-client.js";
import type { PriceTable } from "../model/pricing.js";
import type { TaskSummary } from "../report/summary.js";
import { runTask } from "../run-task.js";
import type { Limits, Task } from "../task/schema.js";
import { hashWorkspace } from "../workspace/hash.js";
import { createDivergenceTracker, type DivergenceReport } from "./divergence.js";
import type { RecordedRun } from "./recorded-run.js";
import { createSplicedModel } from "./spliced-model.js";

export type ReplayKind = "replay" | "fork" | "resume";

export type ReplayOptions = {
  kind: ReplayKind;
  recorded: RecordedRun;
  outDir: string;
  /** The task file given with `--task`: its checks, prompt and settings replace the recorded ones. */
  task: Task | undefined;
  /** Steps served from the recording (all of them for a plain replay). */
  untilStep: number;
  /** The model that takes over after `untilStep` (fork, resume); none for a plain replay. */
  next: { model: ModelClient; name: string } | undefined;
  limits: Partial<Limits>;
  isRecordedUsageCounted: boolean;
  isChangedWorkspaceAllowed: boolean;
  prices: PriceTable;
  baseEnv: Record<string, string>;
  signal: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  onCheck?: (check: CheckResult) => void;
};

export type ReplayOutcome = {
  summary: TaskSummary;
  divergence: DivergenceReport;
  hashMismatch: string | undefined;
};

/**
 * Re-runs a recorded run offline: the recording plays the model, every tool call runs again in a
 * fresh copy of the recorded workspace, and the results are compared with the recorded ones.
 * With `next`, a fork or resume goes on with that model after `untilStep`.
 */
export async function replayRun(options: ReplayOptions): Promise<ReplayOutcome> {
  const { recorded } = options;
  const hashMismatch = await checkWorkspace(recorded, options.isChangedWorkspaceAllowed);
  const base = options.task ?? recorded.task;
  const task: Task = {
    ...base,
    workspace: recorded.task.workspace,
    limits: { ...base.limits, ...options.limits },
  };
  const ending = new AbortController();
  const tracker = createDivergenceTracker(recorded.toolResults, options.untilStep);
  const model = createSplicedModel({
    recorded: recorded.replies,
    untilStep: options.untilStep,
    next: options.next?.model,
    isRecordedUsageCounted: options.isRecordedUsageCounted,
    onRecordingEnd: () => endLikeTheRecording(recorded, ending),
    source: recorded.path,
  });
  const summary = await runTask({
    task,
    modelName: options.next?.name ?? recorded.model,
    model,
    outDir: options.outDir,
    inPlace: false,
    offline: options.next === undefined || recorded.isOffline,
    prices: options.prices,
    baseEnv: options.baseEnv,
    signal: AbortSignal.any([options.signal, ending.signal]),
    onEvent: (event) => {
      tracker.onEvent(event);
      options.onEvent?.(event);
    },
    origin: {
      kind: options.kind,
      transcript: recorded.path,
      sessionId: recorded.sessionId,
      steps: options.untilStep,
    },
  });
  const divergence = tracker.report();
  await writeFile(
    join(summary.runDir, "divergence.json"),
    `${JSON.stringify(divergenceJson(divergence, hashMismatch), null, 2)}\n`,
  );
  return { summary, divergence, hashMismatch };
}

/** Refuses a workspace whose content changed since the run, unless allowed; returns the mismatch. */
async function checkWorkspace(
  recorded: RecordedRun,
  isAllowed: boolean,
): Promise<string | undefined> {
  const now = await hashWorkspace(recorded.task.workspace).catch((error: unknown) => {
    throw new ConfigError(
      `${recorded.path}: cannot read the recorded workspace ${recorded.task.workspace}: ${String(error)}`,
    );
  });
  if (now === recorded.contentHash) return undefined;
  const mismatch = `the workspace ${recorded.task.workspace} changed since the run (recorded ${recorded.contentHash ?? "no hash"}, now ${now})`;
  if (!isAllowed) {
    throw new ConfigError(
      `${recorded.path}: ${mismatch}; replaying it would not reproduce the run. Restore it, or pass --allow-changed-workspace to replay anyway`,
    );
  }
  return mismatch;
}

/** When the recording runs out, the replay ends as the recorded run did at that point. */
function endLikeTheRecording(recorded: RecordedRun, ending: AbortController): ModelError {
  const status = recorded.ending?.status;
  if (status === "timeout" || status === "cancelled") ending.abort(status);
  if (status === "error")
    return new ModelError(
      recorded.ending?.errors[0] ?? "the recorded run ended with an error here",
    );
  const why =
    recorded.ending === undefined
      ? "the run was killed there; `agent-run resume` continues it"
      : `it ended with ${status ?? "no status"}`;
  return new ModelError(
    `the recording has no reply for step ${recorded.replies.length + 1} (${why})`,
  );
}

function divergenceJson(
  report: DivergenceReport,
  hashMismatch: string | undefined,
): Record<string, unknown> {
  return {
    compared_steps: report.comparedSteps,
    divergent_steps: report.divergentSteps,
    first_divergence: report.first ?? null,
    workspace_changed: hashMismatch ?? null,
  };
}
