import type { AgentEvent, RunResult } from "../agent/events.js";
import { gitChangesCheck } from "../checks/git-changes-check.js";
import { runChecks } from "../checks/run-checks.js";
import { messageOf } from "../errors.js";
import type { TaskSummary } from "../report/summary.js";
import { eventLine } from "../transcript/lines.js";
import { diffSnapshots, type WorkspaceChanges } from "../workspace/changes.js";
import { makeScratchFolder, type ScratchFolder } from "../workspace/git/scratch.js";
import {
  compareGitDirStates,
  type GitDirChange,
  type GitDirState,
  readGitDirState,
} from "../workspace/git-dir-state.js";
import { planWorkspace } from "../workspace/prepare.js";
import { type Snapshot, snapshotWorkspace, stageWorkspace } from "../workspace/snapshot.js";
import { runAgentWithLimits } from "./agent-limits.js";
import { type CommandSetup, commandSetup, startMcpAfter } from "./command-setup.js";
import { writePatch } from "./run-folder.js";
import type { RunMcp } from "./run-mcp.js";
import type { RunTaskOptions } from "./run-options.js";
import { finish, openRun, type Run, type Work, writeInit } from "./run-record.js";
import { emptyResult } from "./run-result.js";

/**
 * The workspace the agent works in, where the snapshots live, and its starting state: taken
 * while the first model call is on its way (undefined when it failed: `problems` says why).
 */
type Prepared = CommandSetup & {
  workspace: string;
  scratch: ScratchFolder;
  before: Promise<Snapshot | undefined>;
  /** What is under every `.git` in the workspace at the start (a copy holds none). */
  gitDirsBefore: Promise<GitDirState>;
  /**
   * The MCP servers, started once the starting state is recorded (so what they write counts as
   * the run's change); undefined without any, or without a starting state.
   */
  mcp: Promise<RunMcp | undefined>;
  /** Settles once the init line is written: the agent's lines wait for it. */
  initWritten: Promise<void>;
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
    if (prepared === undefined) writeInit(run, undefined, undefined);
    const work =
      prepared === undefined
        ? { result: undefined, changes: undefined, gitChanges: [], checks: [] }
        : await workIn(run, prepared);
    await prepared?.initWritten;
    const workspace = prepared?.workspace ?? options.task.workspace;
    const cancelledEarly = prepared === undefined && run.problems.length === 0;
    return await finish(run, work, workspace, cancelledEarly ? "cancelled" : undefined);
  } finally {
    await prepared?.scratch.remove();
  }
}

/**
 * A task the batch does not run: `skipped` (its budget is spent, its key was refused) or `not_run`
 * (the batch was cancelled first). A transcript and summary say why, so `agent-run report` counts
 * it as the batch's `report.json` does, and `agent-run resume` finds it.
 */
export async function skipTask(
  options: RunTaskOptions,
  reason: string,
  status: "skipped" | "not_run" = "skipped",
): Promise<TaskSummary> {
  const run = await openRun(options);
  writeInit(run, undefined, undefined);
  const work = {
    result: emptyResult(status, reason, 0),
    changes: undefined,
    gitChanges: [],
    checks: [],
  };
  return finish(run, work, options.task.workspace, undefined);
}

/**
 * Checks the workspace before any model call: one that cannot be copied costs none. The copy and
 * its starting snapshot are then made beside the first model call; the tools wait for them.
 */
async function prepare(run: Run): Promise<Prepared | undefined> {
  const { task, inPlace } = run.options;
  let scratch: ScratchFolder | undefined;
  try {
    scratch = await makeScratchFolder([task.workspace, run.runDir]);
    const plan = await planWorkspace({ source: task.workspace, runDir: run.runDir, inPlace });
    const { gitDir } = scratch;
    const copied = plan.copy();
    const gitDirsBefore = inPlace
      ? copied.then(() => readGitDirState(plan.path, excludedPaths(run)))
      : Promise.resolve(new Map());
    const before = copied
      .then(async () => {
        const excludePaths = excludedPaths(run);
        const [snapshot] = await Promise.all([
          snapshotWorkspace({ workspace: plan.path, gitDir, excludePaths }),
          gitDirsBefore,
        ]);
        return snapshot;
      })
      .catch((error: unknown) => {
        workspaceUnprepared(run, error);
        return undefined;
      });
    gitDirsBefore.catch(() => {}); // reported through `before`, which waits for it
    const setup = commandSetup(run, plan.path);
    const mcp = startMcpAfter(run, before, { workspace: plan.path, ...setup });
    // The init line records the servers' statuses: it waits for them.
    const written = Promise.all([before, mcp]).then(([snapshot, started]) =>
      writeInit(run, plan.path, snapshot, started?.servers),
    );
    return {
      workspace: plan.path,
      scratch,
      before,
      gitDirsBefore,
      ...setup,
      mcp,
      initWritten: written,
    };
  } catch (error) {
    await scratch?.remove();
    workspaceUnprepared(run, error);
    return undefined;
  }
}

/** The workspace could not be copied, or its starting state recorded: the run is an `error`. */
function workspaceUnprepared(run: Run, error: unknown): void {
  run.problems.push(`could not prepare the workspace: ${messageOf(error)}`);
  run.isWorkspaceUnprepared = true;
}

/** In place, the output folder may sit inside the workspace (or be it): it is not content. */
function excludedPaths(run: Run): string[] {
  return run.options.inPlace ? [run.runDir, run.options.outDir] : [];
}

/** The run proper: the agent under its limits, then the changes and the patch, then the checks. */
async function workIn(run: Run, prepared: Prepared): Promise<Work> {
  const { options } = run;
  const { task } = options;
  const { commandEnv, sandbox, readOnlyPaths } = prepared;
  let result: RunResult | undefined;
  try {
    result = await runAgent(run, prepared);
  } finally {
    // Before the checks, however the agent ended: they grade the workspace the servers left.
    await (await prepared.mcp)?.close();
  }
  // Without a starting state the run is an error: there are no changes to find or check.
  if ((await prepared.before) === undefined) {
    return { result, changes: undefined, gitChanges: [], checks: [] };
  }
  const [changes, gitChanges] = await Promise.all([
    collectChanges(run, prepared),
    collectGitChanges(run, prepared),
  ]);
  const checks = await runChecks(task.checks, {
    workspace: prepared.workspace,
    changedFiles: changes?.changedFiles ?? [],
    finalText: result?.finalText ?? "",
    plan: run.plan.items,
    structuredOutput: result?.structuredOutput,
    baseEnv: commandEnv,
    sandbox,
    sandboxLimits: task.sandboxLimits,
    readOnlyPaths,
    signal: options.checkSignal ?? options.signal,
  });
  const gitCheck = gitChangesCheck(gitChanges, task.allowGitChanges);
  if (gitCheck !== undefined) checks.push(gitCheck);
  for (const check of checks) options.onCheck?.(check);
  return { result, changes, gitChanges, checks };
}

/** What changed under the workspace's `.git` entries; a copy starts with none. */
async function collectGitChanges(run: Run, prepared: Prepared): Promise<GitDirChange[]> {
  try {
    const after = await readGitDirState(prepared.workspace, excludedPaths(run));
    return compareGitDirStates(await prepared.gitDirsBefore, after);
  } catch (error) {
    // Unknown is not unchanged: the run is an error, saying why.
    run.problems.push(`could not list what changed under .git: ${messageOf(error)}`);
    return [];
  }
}

/** The agent loop, each event written to the transcript as it happens (after the init line). */
async function runAgent(run: Run, prepared: Prepared): Promise<RunResult | undefined> {
  const { options } = run;
  const { commandEnv, sandbox, readOnlyPaths } = prepared;
  // The servers' tools are offered from the first model call.
  const mcp = await prepared.mcp;
  const stop = new AbortController();
  const write = (event: AgentEvent) => {
    try {
      run.toolCalls.onEvent(event);
      // A subagent's calls its end left unanswered are closed before its end line.
      if (event.type === "subagent_end") {
        const reason = `the subagent ended before this call ran (${event.result.error ?? event.result.status})`;
        for (const line of run.toolCalls.closeSubagent(event.toolUseId, reason)) {
          run.transcript.write(line);
        }
      }
      const line = eventLine(event);
      if (line !== undefined) run.transcript.write(line);
    } catch (error) {
      if (!stop.signal.aborted) run.problems.push(messageOf(error));
      stop.abort("cancelled");
    }
  };
  // Until the init line is written, events wait: it must come first.
  let waiting: AgentEvent[] | undefined = [];
  void prepared.initWritten.then(() => {
    for (const event of waiting ?? []) write(event);
    waiting = undefined;
  });
  const record = (event: AgentEvent) => {
    run.modelUsage.onEvent(event);
    run.plan.onEvent(event);
    if (waiting === undefined) write(event);
    else waiting.push(event);
    options.onEvent?.(event);
  };
  const ready = prepared.before.then((before) => {
    if (before === undefined)
      throw new Error("the workspace's starting state could not be recorded");
  });
  // Only a tool call waits on it: a run that ends before any must not leave it unhandled. A
  // workspace that could not be prepared also ends the run at once (the model call in flight too).
  ready.catch(() => stop.abort("cancelled"));
  const protectedPaths = [run.runDir, options.outDir];
  const setup = {
    ...options,
    system: run.system,
    commandEnv,
    sandbox,
    readOnlyPaths,
    ready,
    protectedPaths,
    mcpTools: mcp?.tools ?? [],
  };
  const result = await runAgentWithLimits(setup, prepared.workspace, record, stop.signal).catch(
    (error: unknown) => {
      run.problems.push(`internal error: ${messageOf(error)}`);
      return undefined;
    },
  );
  await prepared.initWritten;
  // Stopped by agent-run for one of its problems (the transcript, the workspace), not cancelled:
  // the problems say why.
  if (result?.status === "cancelled" && stop.signal.aborted && !options.signal.aborted) {
    return { ...result, error: undefined };
  }
  return result;
}

/** Snapshots the workspace again, diffs it against its start and writes `changes.patch`. */
async function collectChanges(run: Run, prepared: Prepared): Promise<WorkspaceChanges | undefined> {
  const before = await prepared.before;
  if (before === undefined) return undefined;
  try {
    const target = { workspace: prepared.workspace, gitDir: prepared.scratch.gitDir };
    await stageWorkspace({ ...target, excludePaths: excludedPaths(run) });
    const holdsSecret = (bytes: Uint8Array) => {
      const text = Buffer.from(bytes).toString("utf8");
      return run.redact(text) !== text;
    };
    const changes = await diffSnapshots({ ...target, before, holdsSecret });
    await writePatch(run.runDir, changes.patch, run.redact);
    return changes;
  } catch (error) {
    run.problems.push(`could not compute the changed files: ${messageOf(error)}`);
    return undefined;
  }
}
