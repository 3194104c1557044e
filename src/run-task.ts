import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, RunResult, RunStatus } from "./agent/events.js";
import { buildSystemPrompt } from "./agent/system-prompt.js";
import { messageOf } from "./errors.js";
import { type ModelClient, ZERO_USAGE } from "./model/model-client.js";
import { estimateCostUsd, type PriceTable } from "./model/pricing.js";
import { summaryJson, type TaskSummary } from "./report/summary.js";
import { runAgentWithLimits } from "./run-agent-with-limits.js";
import type { Task } from "./task/schema.js";
import { eventLine, type InitInfo, initLine, resultLine } from "./transcript/lines.js";
import { TranscriptWriter } from "./transcript/writer.js";
import { AGENT_RUN_VERSION } from "./version.js";
import { type ChangedFile, diffSnapshots } from "./workspace/changes.js";
import { prepareWorkspace } from "./workspace/prepare.js";
import { contentHash, type Snapshot, snapshotWorkspace } from "./workspace/snapshot.js";

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
};

/**
 * Composition root for one task: prepare the workspace, run the agent under its limits, record
 * the transcript, then the changed files, the patch and the summary. Never throws for a failed
 * run: the outcome is in the returned summary, and the transcript always ends with its result line.
 */
export async function runTask(options: RunTaskOptions): Promise<TaskSummary> {
  const { task } = options;
  const startedAt = performance.now();
  const runDir = join(options.outDir, task.name);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  const transcript = TranscriptWriter.open(join(runDir, "transcript.jsonl"));
  const system = buildSystemPrompt(task.system);
  const problems: string[] = [];
  const snapshots = {
    gitDir: join(runDir, ".snapshot.git"),
    excludePaths: options.inPlace ? [runDir] : [],
  };

  const prepared = options.signal.aborted
    ? undefined
    : await prepare(options, runDir, snapshots).catch((error: unknown) => {
        problems.push(`could not prepare the workspace: ${messageOf(error)}`);
        return undefined;
      });
  const workspacePath = prepared?.workspace ?? task.workspace;
  transcript.write(initLine(initInfo(options, system, workspacePath, prepared?.before)));

  let result: RunResult | undefined;
  let changedFiles: ChangedFile[] = [];
  let patchFile: string | null = null;
  if (prepared !== undefined) {
    const transcriptFailed = new AbortController();
    const record = (event: AgentEvent) => {
      try {
        transcript.write(eventLine(event));
      } catch (error) {
        if (!transcriptFailed.signal.aborted) problems.push(messageOf(error));
        transcriptFailed.abort("cancelled");
      }
      options.onEvent?.(event);
    };
    result = await runAgentWithLimits(
      options,
      system,
      workspacePath,
      record,
      transcriptFailed.signal,
    ).catch((error: unknown) => {
      problems.push(`internal error: ${messageOf(error)}`);
      return undefined;
    });
    const changes = await collectChanges(
      runDir,
      { workspace: workspacePath, ...snapshots },
      prepared.before,
    ).catch((error: unknown) => {
      problems.push(`could not compute the changed files: ${messageOf(error)}`);
      return undefined;
    });
    changedFiles = changes ?? [];
    patchFile = changes === undefined ? null : PATCH_FILE;
  }
  await rm(snapshots.gitDir, { recursive: true, force: true });

  const elapsedMs = performance.now() - startedAt;
  let final =
    options.signal.aborted && prepared === undefined && problems.length === 0
      ? emptyResult("cancelled", "the run was cancelled before it started", elapsedMs)
      : finalResult(result, problems, elapsedMs);
  const costUsd = estimateCostUsd(options.prices, options.modelName, final.usage);
  try {
    transcript.write(
      resultLine({
        result: final,
        model: options.modelName,
        costUsd,
        changedFiles,
        workspace: workspacePath,
      }),
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
    workspace: workspacePath,
    runDir,
    patchFile,
    checks: [],
    passed: final.status === "completed",
  };
  await writeFileAtomic(
    join(runDir, "summary.json"),
    `${JSON.stringify(summaryJson(summary), null, 2)}\n`,
  );
  return summary;
}

const PATCH_FILE = "changes.patch";

type SnapshotPlace = { gitDir: string; excludePaths: string[] };

/** Copies (or adopts) the workspace and records its starting state. */
async function prepare(
  options: RunTaskOptions,
  runDir: string,
  place: SnapshotPlace,
): Promise<{ workspace: string; before: Snapshot }> {
  const { path } = await prepareWorkspace({
    source: options.task.workspace,
    runDir,
    inPlace: options.inPlace,
  });
  const before = await snapshotWorkspace({ workspace: path, ...place });
  return { workspace: path, before };
}

/** Diffs the workspace against its starting state and writes `changes.patch`. */
async function collectChanges(
  runDir: string,
  place: SnapshotPlace & { workspace: string },
  before: Snapshot,
): Promise<ChangedFile[]> {
  const after = await snapshotWorkspace(place);
  const diff = await diffSnapshots({
    workspace: place.workspace,
    gitDir: place.gitDir,
    before,
    after,
  });
  await writeFileAtomic(join(runDir, PATCH_FILE), diff.patch);
  return diff.changedFiles;
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
      bash: { timeoutMs: task.bash.timeoutMs, envKeys: Object.keys(task.bash.env) },
      replies: task.replies,
    },
    workspace: {
      source: task.workspace,
      path: workspacePath,
      inPlace: options.inPlace,
      contentHash: before === undefined ? null : contentHash(before),
    },
    offline: options.offline,
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

async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, content);
  await rename(temp, path);
}
