import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, RunResult } from "./agent/events.js";
import { runAgent } from "./agent/run-agent.js";
import { buildSystemPrompt } from "./agent/system-prompt.js";
import type { ModelClient } from "./model/model-client.js";
import { estimateCostUsd, type PriceTable } from "./model/pricing.js";
import { summaryJson, type TaskSummary } from "./report/summary.js";
import type { Task } from "./task/schema.js";
import { createTools } from "./tools/index.js";
import { eventLine, initLine, resultLine } from "./transcript/lines.js";
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
  const runDir = join(options.outDir, task.name);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  const gitDir = join(runDir, ".snapshot.git");
  const transcript = TranscriptWriter.open(join(runDir, "transcript.jsonl"));
  const system = buildSystemPrompt(task.system);

  let workspacePath = task.workspace;
  let before: Snapshot | undefined;
  let result: RunResult | undefined;
  let changedFiles: ChangedFile[] = [];
  const problems: string[] = [];
  const startedAt = performance.now();

  try {
    workspacePath = (
      await prepareWorkspace({ source: task.workspace, runDir, inPlace: options.inPlace })
    ).path;
    before = await snapshotWorkspace({ workspace: workspacePath, gitDir });
  } catch (error) {
    problems.push(`could not prepare the workspace: ${messageOf(error)}`);
  }

  transcript.write(
    initLine({
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
    }),
  );

  if (before !== undefined) {
    result = await runAgentUnderTimeout(options, system, workspacePath, (event) => {
      transcript.write(eventLine(event));
      options.onEvent?.(event);
    }).catch((error: unknown) => {
      problems.push(`internal error: ${messageOf(error)}`);
      return undefined;
    });
    try {
      const after = await snapshotWorkspace({ workspace: workspacePath, gitDir });
      const diff = await diffSnapshots({ workspace: workspacePath, gitDir, before, after });
      changedFiles = diff.changedFiles;
      await writeFileAtomic(join(runDir, "changes.patch"), diff.patch);
    } catch (error) {
      problems.push(`could not compute the changed files: ${messageOf(error)}`);
    }
  }
  await rm(gitDir, { recursive: true, force: true });

  const final = finalResult(result, problems, performance.now() - startedAt);
  const costUsd = estimateCostUsd(options.prices, options.modelName, final.usage);
  transcript.write(
    resultLine({
      result: final,
      model: options.modelName,
      costUsd,
      changedFiles,
      workspace: workspacePath,
    }),
  );
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
  };
  await writeFileAtomic(
    join(runDir, "summary.json"),
    `${JSON.stringify(summaryJson(summary), null, 2)}\n`,
  );
  return summary;
}

/** Runs the loop with the task's wall-clock timeout and the batch's cancellation folded into one signal. */
async function runAgentUnderTimeout(
  options: RunTaskOptions,
  system: string,
  workspaceRoot: string,
  onEvent: (event: AgentEvent) => void,
): Promise<RunResult> {
  const { task } = options;
  const controller = new AbortController();
  const cancel = () => controller.abort("cancelled");
  if (options.signal.aborted) cancel();
  options.signal.addEventListener("abort", cancel, { once: true });
  const timer = setTimeout(() => controller.abort("timeout"), task.limits.timeoutMs);
  try {
    return await runAgent({
      model: options.model,
      modelName: options.modelName,
      system,
      prompt: task.prompt,
      tools: createTools(task.tools, {
        bash: { timeoutMs: task.bash.timeoutMs, env: { ...options.baseEnv, ...task.bash.env } },
      }),
      limits: task.limits,
      workspaceRoot,
      signal: controller.signal,
      onEvent,
    });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", cancel);
  }
}

/** The run's result, or an `error` result when the run could not start or finish. */
function finalResult(
  result: RunResult | undefined,
  problems: string[],
  elapsedMs: number,
): RunResult {
  if (problems.length === 0 && result !== undefined) return result;
  const base: RunResult = result ?? {
    status: "error",
    steps: 0,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    },
    finalText: "",
    stopReason: null,
    durationMs: Math.round(elapsedMs),
    apiDurationMs: 0,
    error: undefined,
  };
  const errors = [base.error, ...problems].filter((text): text is string => text !== undefined);
  return { ...base, status: "error", error: errors.join("; ") };
}

async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, content);
  await rename(temp, path);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
