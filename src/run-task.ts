import { dirname, join } from "node:path";
import type { LimitHit } from "./agent/budget.js";
import type { AgentEvent, RunResult, RunStatus } from "./agent/events.js";
import { buildSystemPrompt } from "./agent/system-prompt.js";
import { runChecks } from "./checks/run-checks.js";
import type { CheckResult } from "./checks/types.js";
import { messageOf } from "./errors.js";
import { type ModelClient, ZERO_USAGE } from "./model/model-client.js";
import { estimateCostUsd, type PriceTable } from "./model/pricing.js";
import type { Redactor } from "./redact.js";
import { summaryJson, type TaskSummary } from "./report/summary.js";
import { commandEnv, runAgentWithLimits } from "./run-agent-with-limits.js";
import {
  clearRunDir,
  collectChanges,
  PATCH_FILE,
  plannedWorkspace,
  prepare,
  removeSnapshots,
  type SnapshotPlace,
} from "./run-files.js";
import type { Task } from "./task/schema.js";
import {
  checkLine,
  eventLine,
  type InitInfo,
  initLine,
  type RunOrigin,
  resultLine,
} from "./transcript/lines.js";
import { TranscriptWriter } from "./transcript/writer.js";
import { AGENT_RUN_VERSION } from "./version.js";
import type { WorkspaceChanges } from "./workspace/changes.js";
import { contentHash, type Snapshot } from "./workspace/snapshot.js";
import { writeFileAtomicSync } from "./write-file-atomic.js";

/** Everything one task run needs, already resolved by the command line. */
export type RunTaskOptions = {
  task: Task;
  /** The model id after `--model`, the task, `ANTHROPIC_MODEL` and the default. */
  modelName: string;
  model: ModelClient;
  outDir: string;
  inPlace: boolean;
  offline: boolean;
  prices: PriceTable;
  /** The environment bash commands start from (the caller removes secrets); the task's env is added. */
  baseEnv: Record<string, string>;
  /** Aborted when the batch is cancelled (Ctrl-C, SIGTERM). */
  signal: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  /** A limit from outside the task (the batch budget), asked before each model call. */
  gate?: () => LimitHit | undefined;
  /** `--sandbox`: overrides the task's own. */
  sandbox?: "none" | "bwrap" | undefined;
  /** Record the task as skipped, with this reason, instead of running it (a spent batch budget). */
  skipReason?: string;
  /** The run folder; default `outDir/<task name>`. */
  runDir?: string;
  /** Files in the run folder to keep when it is cleared (a resumed run's earlier transcript). */
  preserve?: readonly string[];
  /** Cancels the checks; default `signal` (a replay ends its agent through `signal`, not its checks). */
  checkSignal?: AbortSignal;
  /** Hides secret values in everything written (transcript, summary, patch). */
  redact?: Redactor;
  /** Called with each check's result, after the agent stopped. */
  onCheck?: (result: CheckResult) => void;
  /** Set for replays, forks and resumes: recorded in the init line and `summary.json`. */
  origin?: RunOrigin;
  /**
   * A git dir for the snapshots, kept by the caller and used by one task at a time (a batch has
   * one per concurrent task, in one folder: see `snapshot-scratch.ts`). Its index is reset for
   * the task; its objects stay when the last task worked on the same workspace. Default: the
   * run's own in the run folder, deleted when the run ends.
   */
  snapshotGitDir?: string;
  /**
   * Other tasks run beside this one in this process (a batch with --concurrency above 1): the
   * workspace's files are then copied on the thread pool, so a slow disk holds none of them up.
   */
  isSharingEventLoop?: boolean;
  /**
   * Called once the task stops using its place in a batch's concurrency: when its agent has
   * stopped (no more model calls or commands), or, with checks, when they are done. What is left
   * (the closing snapshot, the patch, the summary) only writes this task's own files.
   */
  onSlotFree?: () => void;
};

/**
 * Composition root for one task: prepare the workspace, run the agent under its limits, record
 * the transcript, then the changed files, the patch and the summary. Never throws for a failed
 * run: the outcome is in the returned summary, and the transcript always ends with its result line.
 */
export async function runTask(options: RunTaskOptions): Promise<TaskSummary> {
  const { task } = options;
  const startedAt = performance.now();
  const runDir = options.runDir ?? join(options.outDir, task.name);
  await clearRunDir(runDir, options.preserve ?? []);
  const redact = options.redact ?? ((text: string) => text);
  const transcript = TranscriptWriter.open(join(runDir, "transcript.jsonl"), { redact });
  const system = buildSystemPrompt(task.system);
  const problems: string[] = [];
  const lane = options.snapshotGitDir;
  const place = {
    gitDir: lane ?? join(runDir, ".snapshot.git"),
    // In place, the output folder may sit inside the workspace (or be it): it is agent-run's, not
    // content, and neither are the other lanes' git dirs beside this one.
    excludePaths: options.inPlace
      ? [runDir, options.outDir, ...(lane === undefined ? [] : [dirname(lane)])]
      : [],
    isLane: lane !== undefined,
  };

  // The workspace is copied and snapshotted while the first model call is on its way: tools wait
  // until its files are read (`ready`), and the transcript's lines wait for its init line. A
  // snapshot that fails after that (writing its tree) makes the run an error when it ends.
  const isSkipped = options.signal.aborted || options.skipReason !== undefined;
  let markReady = () => {};
  const staged = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const preparing = isSkipped
    ? Promise.resolve(undefined)
    : prepare(task.workspace, options.inPlace, runDir, place, {
        onReady: () => markReady(),
        isEveryFileOnThreadPool: options.isSharingEventLoop === true,
      }).catch((error: unknown) => {
        problems.push(`could not prepare the workspace: ${messageOf(error)}`);
        return undefined;
      });
  const ready = Promise.race([
    staged,
    preparing.then((prepared) => {
      if (prepared === undefined) throw new Error("the workspace could not be prepared");
    }),
  ]);
  ready.catch(() => {}); // handled where the loop awaits it; a run that ends without tools never does
  const initWritten = preparing
    .then((prepared) =>
      transcript.write(
        initLine(
          initInfo(options, system, prepared?.workspace ?? task.workspace, prepared?.before),
        ),
      ),
    )
    .catch((error: unknown) => {
      problems.push(messageOf(error));
    });
  const work = isSkipped
    ? undefined
    : await runAndCollect(
        options,
        {
          ...place,
          runDir,
          system,
          workspace: plannedWorkspace(task.workspace, options.inPlace, runDir),
          preparing,
          ready,
          initWritten,
        },
        transcript,
        problems,
      );
  await initWritten;
  const prepared = await preparing;
  const workspace = prepared?.workspace ?? task.workspace;
  // Scratch space only: it goes while the result and the summary are written. A failure is kept
  // and thrown at the end, so it is never an unhandled rejection meanwhile.
  const removing = removeSnapshots(place).then(
    () => undefined,
    (error: unknown) => ({ error }),
  );

  const elapsedMs = performance.now() - startedAt;
  let final =
    options.skipReason !== undefined
      ? emptyResult("skipped", options.skipReason, elapsedMs)
      : options.signal.aborted && prepared === undefined && problems.length === 0
        ? emptyResult("cancelled", "the run was cancelled before it started", elapsedMs)
        : finalResult(work?.result, problems, elapsedMs);
  const changedFiles = work?.changes?.changedFiles ?? [];
  const checks = work?.checks ?? [];
  const costUsd = estimateCostUsd(options.prices, options.modelName, final.usage);
  try {
    for (const check of checks) transcript.write(checkLine(check));
    transcript.write(
      resultLine({ result: final, model: options.modelName, costUsd, changedFiles, workspace }),
    );
  } catch (error) {
    final = finalResult(final, [messageOf(error)], elapsedMs);
  }
  transcript.close();

  const summary: TaskSummary = {
    name: task.name,
    taskFile: task.file,
    status: final.status,
    error: final.error,
    model: options.modelName,
    steps: final.steps,
    usage: final.usage,
    costUsd,
    durationMs: final.durationMs,
    finalText: final.finalText,
    changedFiles,
    workspace,
    runDir,
    patchFile: work?.changes === undefined ? null : PATCH_FILE,
    checks,
    passed: final.status === "completed" && checks.every((check) => check.passed),
    origin: options.origin,
  };
  try {
    writeFileAtomicSync(
      join(runDir, "summary.json"),
      redact(`${JSON.stringify(summaryJson(summary), null, 2)}\n`),
    );
  } catch (error) {
    await removing;
    throw error;
  }
  const removal = await removing;
  if (removal !== undefined) throw removal.error;
  return summary;
}

type Prepared = { workspace: string; before: Snapshot };

type RunPlan = SnapshotPlace & {
  /** Where the agent will work, known before the copy is done. */
  workspace: string;
  runDir: string;
  system: string;
  preparing: Promise<Prepared | undefined>;
  /** Settles once the tools may use the workspace; rejects when it could not be prepared. */
  ready: Promise<void>;
  initWritten: Promise<void>;
};

/**
 * The run proper: the agent under its limits (each event to the transcript as it happens), then
 * the changed files and patch, then the checks. Failures become `problems`; nothing throws.
 */
async function runAndCollect(
  options: RunTaskOptions,
  plan: RunPlan,
  transcript: TranscriptWriter,
  problems: string[],
): Promise<{
  result: RunResult | undefined;
  changes: WorkspaceChanges | undefined;
  checks: CheckResult[];
}> {
  const transcriptFailed = new AbortController();
  const pending: AgentEvent[] = [];
  let isInitWritten = false;
  const write = (event: AgentEvent) => {
    try {
      transcript.write(eventLine(event));
    } catch (error) {
      if (!transcriptFailed.signal.aborted) problems.push(messageOf(error));
      transcriptFailed.abort("cancelled");
    }
  };
  void plan.initWritten.then(() => {
    isInitWritten = true;
    for (const event of pending.splice(0)) write(event);
  });
  const record = (event: AgentEvent) => {
    if (isInitWritten) write(event);
    else pending.push(event);
    options.onEvent?.(event);
  };

  const result = await runAgentWithLimits(
    options,
    plan.system,
    plan.workspace,
    record,
    transcriptFailed.signal,
    plan.ready,
  ).catch((error: unknown) => {
    problems.push(`internal error: ${messageOf(error)}`);
    return undefined;
  });
  if (options.task.checks.length === 0) options.onSlotFree?.();
  await plan.initWritten;
  for (const event of pending.splice(0)) write(event);
  const prepared = await plan.preparing;
  if (prepared === undefined) return { result, changes: undefined, checks: [] };
  const changes = await collectChanges(
    plan.runDir,
    { ...plan, workspace: prepared.workspace },
    prepared.before,
    options.redact ?? ((text) => text),
  ).catch((error: unknown) => {
    problems.push(`could not compute the changed files: ${messageOf(error)}`);
    return undefined;
  });
  const checks = await runChecks(options.task.checks, {
    workspace: prepared.workspace,
    changedFiles: changes?.changedFiles ?? [],
    finalText: result?.finalText ?? "",
    baseEnv: commandEnv(options, prepared.workspace),
    sandbox: options.sandbox ?? options.task.sandbox,
    signal: options.checkSignal ?? options.signal,
  });
  for (const check of checks) options.onCheck?.(check);
  if (options.task.checks.length > 0) options.onSlotFree?.();
  return { result, changes, checks };
}

/** The init line's facts: the task as resolved, and where and from what state it starts. */
function initInfo(
  options: RunTaskOptions,
  system: string,
  workspacePath: string,
  before: Snapshot | undefined,
): InitInfo {
  const { task } = options;
  return {
    agentRunVersion: AGENT_RUN_VERSION,
    model: options.modelName,
    system,
    tools: task.tools,
    task: {
      name: task.name,
      file: task.file,
      prompt: task.prompt,
      system: task.system,
      limits: task.limits,
      bash: task.bash,
      sandbox: options.sandbox ?? task.sandbox,
      replies: task.replies,
      checks: task.checks,
    },
    workspace: {
      source: task.workspace,
      path: workspacePath,
      inPlace: options.inPlace,
      contentHash: before === undefined ? null : contentHash(before),
    },
    offline: options.offline,
    origin: options.origin,
  };
}

/** The run's result, or an `error` result when the run could not start or finish. */
function finalResult(
  result: RunResult | undefined,
  problems: string[],
  elapsedMs: number,
): RunResult {
  if (problems.length === 0 && result !== undefined) return result;
  const base = result ?? emptyResult("error", undefined, elapsedMs);
  const errors = [base.error, ...problems].filter((text): text is string => text !== undefined);
  return { ...base, status: "error", error: errors.join("; ") };
}

/** A result for a run that made no model call. */
function emptyResult(status: RunStatus, error: string | undefined, elapsedMs: number): RunResult {
  return {
    status,
    steps: 0,
    usage: ZERO_USAGE,
    finalText: "",
    stopReason: null,
    durationMs: Math.round(elapsedMs),
    apiDurationMs: 0,
    error,
  };
}
