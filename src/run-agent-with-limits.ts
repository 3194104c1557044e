import { dirname } from "node:path";
import type { LimitHit } from "./agent/budget.js";
import type { AgentEvent, RunResult } from "./agent/events.js";
import { runAgent } from "./agent/run-agent.js";
import type { ModelClient } from "./model/model-client.js";
import { estimateCostUsd, type PriceTable } from "./model/pricing.js";
import type { Task } from "./task/schema.js";
import { createTools } from "./tools/index.js";

/** What the loop needs from a task run. */
export type AgentRunSetup = {
  task: Task;
  modelName: string;
  model: ModelClient;
  inPlace: boolean;
  baseEnv: Record<string, string>;
  /** The batch's cancellation. */
  signal: AbortSignal;
  prices: PriceTable;
  /** A limit from outside the task (the batch budget), asked before each model call. */
  gate?: (() => LimitHit | undefined) | undefined;
  /** `--sandbox`: overrides the task's `sandbox`. */
  sandbox?: "none" | "bwrap" | undefined;
};

/** Node timers fire at once past this (about 24.8 days); longer timeouts wait this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs the loop with the task's wall-clock timeout and the batch's cancellation folded into one signal. */
export async function runAgentWithLimits(
  options: AgentRunSetup,
  system: string,
  workspaceRoot: string,
  onEvent: (event: AgentEvent) => void,
  stop: AbortSignal,
  ready?: Promise<void>,
): Promise<RunResult> {
  const { task } = options;
  const controller = new AbortController();
  // A caller may end the run as a timeout (a replay reproducing one); anything else is a cancellation.
  const cancel = () =>
    controller.abort(options.signal.reason === "timeout" ? "timeout" : "cancelled");
  if (options.signal.aborted || stop.aborted) cancel();
  options.signal.addEventListener("abort", cancel, { once: true });
  stop.addEventListener("abort", cancel, { once: true });
  const timer = setTimeout(
    () => controller.abort("timeout"),
    Math.min(task.limits.timeoutMs, MAX_TIMER_MS),
  );
  try {
    return await runAgent({
      model: options.model,
      modelName: options.modelName,
      system,
      prompt: task.prompt,
      tools: createTools(task.tools, {
        bash: {
          timeoutMs: task.bash.timeoutMs,
          env: commandEnv(options, workspaceRoot),
          policy: { allow: task.bash.allow, deny: task.bash.deny },
          maxOutputChars: task.bash.maxOutputChars,
          maxRecordedChars: task.bash.maxRecordedChars,
          sandbox: options.sandbox ?? task.sandbox,
        },
      }),
      limits: task.limits,
      workspaceRoot,
      signal: controller.signal,
      onEvent,
      costOf: (usage) => estimateCostUsd(options.prices, options.modelName, usage),
      ...(ready === undefined ? {} : { ready }),
      ...(options.gate === undefined ? {} : { gate: options.gate }),
    });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", cancel);
    stop.removeEventListener("abort", cancel);
  }
}

/**
 * The environment of the agent's commands. On a copy, git must not find the repository the copy
 * sits in (the copy has no .git of its own), so discovery stops at the copy's parent.
 */
export function commandEnv(
  options: Pick<AgentRunSetup, "inPlace" | "baseEnv" | "task">,
  workspaceRoot: string,
): Record<string, string> {
  const ceiling = options.inPlace ? {} : { GIT_CEILING_DIRECTORIES: dirname(workspaceRoot) };
  return { ...options.baseEnv, ...ceiling, ...options.task.bash.env };
}
