import { dirname, join } from "node:path";
import type { AgentEvent, RunResult } from "../agent/events.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { CheckResult } from "../checks/types.js";
import { messageOf } from "../errors.js";
import type { Redactor } from "../redact.js";
import { runDirOf } from "../report/run-folders.js";
import type { TaskSummary } from "../report/summary.js";
import type { McpServerStatus } from "../tools/mcp-tools.js";
import type { PlanItem } from "../tools/plan-store.js";
import { initLine } from "../transcript/init-line.js";
import { checkLine } from "../transcript/lines.js";
import { resultLine } from "../transcript/result-line.js";
import { createToolCallLedger, type ToolCallLedger } from "../transcript/tool-call-ledger.js";
import { TranscriptWriter } from "../transcript/writer.js";
import { AGENT_RUN_VERSION } from "../version.js";
import type { WorkspaceChanges } from "../workspace/changes.js";
import type { GitDirChange } from "../workspace/git-dir-state.js";
import { contentHash, type Snapshot } from "../workspace/snapshot.js";
import { createModelUsageTally } from "./model-usage.js";
import {
  clearRunDir,
  OUTPUT_FILE,
  PATCH_FILE,
  prepareTrialsDir,
  TRANSCRIPT_FILE,
  writeOutput,
  writeSummary,
} from "./run-folder.js";
import type { RunTaskOptions } from "./run-options.js";
import { emptyResult, finalResult, toSummary } from "./run-result.js";

// A run's record: its folder, the transcript's first and last lines, and its summary.

/** One run in progress: its folder, its transcript, and what went wrong so far. */
export type Run = {
  options: RunTaskOptions;
  runDir: string;
  startedAt: number;
  redact: Redactor;
  system: string;
  transcript: TranscriptWriter;
  /** Failures of agent-run's own steps; any makes the run an `error`. */
  problems: string[];
  /** One of them: the workspace could not be prepared (an infrastructure failure; see `ErrorKind`). */
  isWorkspaceUnprepared: boolean;
  /** Each model's replies added up, for the result line. */
  modelUsage: ReturnType<typeof createModelUsageTally>;
  /** The tool calls still unanswered, and those refused, for the closing lines. */
  toolCalls: ToolCallLedger;
  /** The top-level agent's plan as it last wrote it (`todo_write`), for the checks and summary. */
  plan: PlanTally;
};

/** Follows the top-level agent's plan through the run's events. */
export type PlanTally = {
  onEvent(event: AgentEvent): void;
  readonly items: readonly PlanItem[] | undefined;
};

function createPlanTally(): PlanTally {
  let items: readonly PlanItem[] | undefined;
  return {
    onEvent(event) {
      if (event.type === "plan_updated" && event.subagent === undefined) items = event.items;
    },
    get items() {
      return items;
    },
  };
}

/** What the run produced beyond its transcript. */
export type Work = {
  result: RunResult | undefined;
  changes: WorkspaceChanges | undefined;
  /** What changed under a `.git` in the workspace (snapshots never hold one). */
  gitChanges: GitDirChange[];
  checks: CheckResult[];
};

export async function openRun(options: RunTaskOptions): Promise<Run> {
  const runDir = options.runDir ?? runDirOf(options.outDir, options.task.name, options.trial);
  // A trial's folder sits in its task's folder of trials, which is agent-run's too.
  if (options.trial !== undefined) await prepareTrialsDir(dirname(runDir));
  await clearRunDir(runDir, options.preserve ?? []);
  const redact = options.redact ?? ((text: string) => text);
  return {
    options,
    runDir,
    startedAt: performance.now(),
    redact,
    system: buildSystemPrompt(
      options.task.system,
      options.task.tools,
      false,
      options.task.output?.schema,
    ),
    transcript: TranscriptWriter.open(join(runDir, TRANSCRIPT_FILE), { redact }),
    problems: [],
    isWorkspaceUnprepared: false,
    modelUsage: createModelUsageTally(options),
    toolCalls: createToolCallLedger(),
    plan: createPlanTally(),
  };
}

/** The first line: the task as resolved, and where and from what state it starts. */
export function writeInit(
  run: Run,
  workspace: string | undefined,
  before: Snapshot | undefined,
  mcpServers: readonly McpServerStatus[] = [],
): void {
  const { options } = run;
  const { task } = options;
  try {
    run.transcript.write(
      initLine({
        agentRunVersion: AGENT_RUN_VERSION,
        model: options.modelName,
        system: run.system,
        tools: [
          ...task.tools.filter((tool) => tool !== "task"),
          ...task.commandTools.map((tool) => tool.name),
        ],
        mcpServers,
        task: { ...task, sandbox: options.sandbox ?? task.sandbox },
        workspace: {
          source: task.workspace,
          path: workspace ?? task.workspace,
          inPlace: options.inPlace,
          contentHash: before === undefined ? null : contentHash(before),
        },
        offline: options.offline,
        origin: options.origin,
        trial: options.trial,
        attempt: options.attempt ?? 1,
        earlierAttempts: options.earlierAttempts ?? [],
      }),
    );
  } catch (error) {
    run.problems.push(messageOf(error));
  }
}

/** Writes the check and result lines, closes the transcript and writes `summary.json`. */
export async function finish(
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
      : finalResult(
          work.result,
          run.problems,
          elapsedMs,
          run.isWorkspaceUnprepared ? "workspace" : "other",
        );
  final = await writeStructuredOutput(run, final, elapsedMs);
  const changedFiles = work.changes?.changedFiles ?? [];
  const { costUsd } = final;
  try {
    const notRun = `the run ended before this call ran (${final.error ?? final.status})`;
    for (const line of run.toolCalls.closeOpen(notRun)) run.transcript.write(line);
    for (const check of work.checks) run.transcript.write(checkLine(check));
    const { limits } = options.task;
    run.transcript.write(
      resultLine({
        result: final,
        model: options.modelName,
        costUsd,
        modelUsage: run.modelUsage.entries(),
        limits: {
          maxOutputTokens: limits.maxOutputTokens,
          maxContextTokens: limits.maxContextTokens,
        },
        permissionDenials: run.toolCalls.denials(),
        changedFiles,
        workspace,
      }),
    );
    // Up to its last line: a file replaced after it would otherwise go unnoticed.
    run.transcript.verify();
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
    gitChanges: work.gitChanges,
    checks: work.checks,
    plan: options.task.tools.includes("todo_write") ? (run.plan.items ?? null) : undefined,
  });
  await writeSummary(summary, run.redact);
  return summary;
}

/**
 * Writes `output.json` when the run has a structured output, before the result line: a file that
 * cannot be written makes the run an error, as the result line then says.
 */
async function writeStructuredOutput(
  run: Run,
  final: RunResult,
  elapsedMs: number,
): Promise<RunResult> {
  if (final.structuredOutput === undefined) return final;
  try {
    await writeOutput(run.runDir, final.structuredOutput, run.redact);
    return final;
  } catch (error) {
    return finalResult(final, [`could not write ${OUTPUT_FILE}: ${messageOf(error)}`], elapsedMs);
  }
}
