import { join } from "node:path";
import type { LimitHit } from "../agent/budget.js";
import type { AgentEvent, RunResult } from "../agent/events.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { runChecks } from "../checks/run-checks.js";
import type { CheckResult } from "../checks/types.js";
import { messageOf } from "../errors.js";
import type { ModelClient } from "../model/model-client.js";
import { estimateCostUsd, type PriceTable } from "../model/pricing.js";
import { taskCommandEnv } from "../process/command-env.js";
import type { Redactor } from "../redact.js";
import type { TaskSummary } from "../report/summary.js";
import type { Task } from "../task/schema.js";
import type { Sandbox } from "../tools/sandbox.js";
import { initLine, type RunOrigin } from "../transcript/init-line.js";
import { checkLine, eventLine, resultLine } from "../transcript/lines.js";
import { TranscriptWriter } from "../transcript/writer.js";
import { AGENT_RUN_VERSION } from "../version.js";
import { diffSnapshots, type WorkspaceChanges } from "../workspace/changes.js";
import { makeScratchFolder, type ScratchFolder } from "../workspace/git/scratch.js";
import { prepareWorkspace } from "../workspace/prepare.js";
import { contentHash, type Snapshot, snapshotWorkspace } from "../workspace/snapshot.js";
import { runAgentWithLimits } from "./agent-limits.js";
import {
  clearRunDir,
  PATCH_FILE,
  TRANSCRIPT_FILE,
  writePatch,
  writeSummary,
} from "./run-folder.js";
import { emptyResult, finalResult, toSummary } from "./run-result.js";

/** Everything one task run needs, already resolved by the command line. */
export type RunTaskOptions = {
  task: Task;
  /** The model id after `--model`, the task, `ANTHROPIC_MODEL` and the default. */
  modelName: string;
  model: ModelClient;
  /** The batch's output folder; in place it may sit inside the workspace, and is not content. */
  outDir: string;
  /** The run folder; default `outDir/<task name>`. */
  runDir?: string;
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
  /** Set for replays, forks and resumes: recorded in the init line and `summary.json`. */
  origin?: RunOrigin;
  /** Files in the run folder to keep when it is cleared (a resumed run's earlier transcript). */
  preserve?: readonly string[];
};

/** One run in progress: its folder, its transcript, and what went wrong so far. */
type Run = {
  options: RunTaskOptions;
  runDir: string;
  startedAt: number;
  redact: Redactor;
  system: string;
  transcript: TranscriptWriter;
  /** Failures of agent-run's own steps; any makes the run an `error`. */
  problems: string[];
};

/** The workspace the agent works in, its starting state, and where the snapshots live. */
type Prepared = { workspace: string; before: Snapshot; scratch: ScratchFolder };

/** What the run produced beyond its transcript. */
type Work = {
  result: RunResult | undefined;
  changes: WorkspaceChanges | undefined;
  checks: CheckResult[];
};

/**
 * Composition root for one task: prepare the workspace, run the agent under its limits, collect
 * the changes, run the checks, write the summary. Never throws for a failed run: the outcome is
 * in the returned summary, and the transcript always ends with its result line.
 */
export async function runTask(options: RunTaskOptions): Promise<TaskSummary> {
  const run = await openRun(options);
  const prepared = options.signal.aborted ? undefined : await prepare(run);
  try {
    writeInit(run, prepared);
    const work =
      prepared === undefined
        ? { result: undefined, changes: undefined, checks: [] }
        : await workIn(run, prepared);
    const workspace = prepared?.workspace ?? options.task.workspace;
    const cancelledEarly = prepared === undefined && run.problems.length === 0;
    return await finish(run, work, workspace, cancelledEarly ? "cancelled" : undefined);
  } finally {
    await prepared?.scratch.remove();
  }
}

/** A task the batch does not run (its budget is spent): a transcript and summary that say why. */
export async function skipTask(options: RunTaskOptions, reason: string): Promise<TaskSummary> {
  const run = await openRun(options);
  writeInit(run, undefined);
  const work = { result: emptyResult("skipped", reason, 0), changes: undefined, checks: [] };
  return finish(run, work, options.task.workspace, undefined);
}

async function openRun(options: RunTaskOptions): Promise<Run> {
  const runDir = options.runDir ?? join(options.outDir, options.task.name);
  await clearRunDir(runDir, options.preserve ?? []);
  const redact = options.redact ?? ((text: string) => text);
  return {
    options,
    runDir,
    startedAt: performance.now(),
    redact,
    system: buildSystemPrompt(options.task.system),
    transcript: TranscriptWriter.open(join(runDir, TRANSCRIPT_FILE), { redact }),
    problems: [],
  };
}

/** Copies (or adopts) the workspace and snapshots its starting state, before any model call. */
async function prepare(run: Run): Promise<Prepared | undefined> {
  const { task, inPlace, outDir } = run.options;
  let scratch: ScratchFolder | undefined;
  try {
    scratch = await makeScratchFolder([task.workspace, run.runDir]);
    const { path } = await prepareWorkspace({
      source: task.workspace,
      runDir: run.runDir,
      inPlace,
    });
    const before = await snapshotWorkspace({
      workspace: path,
      gitDir: scratch.gitDir,
      // In place, the output folder may sit inside the workspace (or be it): it is not content.
      excludePaths: inPlace ? [run.runDir, outDir] : [],
    });
    return { workspace: path, before, scratch };
  } catch (error) {
    await scratch?.remove();
    run.problems.push(`could not prepare the workspace: ${messageOf(error)}`);
    return undefined;
  }
}

function writeInit(run: Run, prepared: Prepared | undefined): void {
  const { options } = run;
  const { task } = options;
  try {
    run.transcript.write(
      initLine({
        agentRunVersion: AGENT_RUN_VERSION,
        model: options.modelName,
        system: run.system,
        tools: task.tools,
        task: { ...task, sandbox: options.sandbox ?? task.sandbox },
        workspace: {
          source: task.workspace,
          path: prepared?.workspace ?? task.workspace,
          inPlace: options.inPlace,
          contentHash: prepared === undefined ? null : contentHash(prepared.before),
        },
        offline: options.offline,
        origin: options.origin,
      }),
    );
  } catch (error) {
    run.problems.push(messageOf(error));
  }
}

/** The run proper: the agent under its limits, then the changes and the patch, then the checks. */
async function workIn(run: Run, prepared: Prepared): Promise<Work> {
  const { options } = run;
  const { task } = options;
  const sandbox = options.sandbox ?? task.sandbox;
  const commandEnv = taskCommandEnv(options.baseEnv, {
    workspace: prepared.workspace,
    isInPlace: options.inPlace,
    env: task.bash.env,
  });
  const result = await runAgent(run, prepared.workspace, commandEnv, sandbox);
  const changes = await collectChanges(run, prepared);
  const checks = await runChecks(task.checks, {
    workspace: prepared.workspace,
    changedFiles: changes?.changedFiles ?? [],
    finalText: result?.finalText ?? "",
    baseEnv: commandEnv,
    sandbox,
    signal: options.checkSignal ?? options.signal,
  });
  for (const check of checks) options.onCheck?.(check);
  return { result, changes, checks };
}

/** The agent loop, each event written to the transcript as it happens. */
async function runAgent(
  run: Run,
  workspace: string,
  commandEnv: Record<string, string>,
  sandbox: Sandbox,
): Promise<RunResult | undefined> {
  const { options } = run;
  const transcriptFailed = new AbortController();
  const record = (event: AgentEvent) => {
    try {
      run.transcript.write(eventLine(event));
    } catch (error) {
      if (!transcriptFailed.signal.aborted) run.problems.push(messageOf(error));
      transcriptFailed.abort("cancelled");
    }
    options.onEvent?.(event);
  };
  const setup = { ...options, system: run.system, commandEnv, sandbox };
  return runAgentWithLimits(setup, workspace, record, transcriptFailed.signal).catch(
    (error: unknown) => {
      run.problems.push(`internal error: ${messageOf(error)}`);
      return undefined;
    },
  );
}

/** Snapshots the workspace again, diffs it against its start and writes `changes.patch`. */
async function collectChanges(run: Run, prepared: Prepared): Promise<WorkspaceChanges | undefined> {
  const { inPlace, outDir } = run.options;
  try {
    const target = { workspace: prepared.workspace, gitDir: prepared.scratch.gitDir };
    const excludePaths = inPlace ? [run.runDir, outDir] : [];
    const after = await snapshotWorkspace({ ...target, excludePaths });
    const changes = await diffSnapshots({ ...target, before: prepared.before, after });
    await writePatch(run.runDir, changes.patch, run.redact);
    return changes;
  } catch (error) {
    run.problems.push(`could not compute the changed files: ${messageOf(error)}`);
    return undefined;
  }
}

/** Writes the check and result lines, closes the transcript and writes `summary.json`. */
async function finish(
  run: Run,
  work: Work,
  workspace: string,
  earlyStatus: "cancelled" | undefined,
): Promise<TaskSummary> {
  const { options } = run;
  const elapsedMs = performance.now() - run.startedAt;
  let final =
    earlyStatus === "cancelled"
      ? emptyResult("cancelled", "the run was cancelled before it started", elapsedMs)
      : finalResult(work.result, run.problems, elapsedMs);
  const changedFiles = work.changes?.changedFiles ?? [];
  const costUsd = estimateCostUsd(options.prices, options.modelName, final.usage);
  try {
    for (const check of work.checks) run.transcript.write(checkLine(check));
    const model = options.modelName;
    run.transcript.write(resultLine({ result: final, model, costUsd, changedFiles, workspace }));
  } catch (error) {
    final = finalResult(final, [messageOf(error)], elapsedMs);
  }
  run.transcript.close();
  const summary = toSummary(options, final, {
    changedFiles,
    costUsd,
    workspace,
    runDir: run.runDir,
    patchFile: work.changes === undefined ? null : PATCH_FILE,
    checks: work.checks,
  });
  await writeSummary(summary, run.redact);
  return summary;
}
