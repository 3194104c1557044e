import type { AgentEvent, LimitHit, RunResult } from "../agent/events.js";
import { runAgent } from "../agent/run-agent.js";
import type { SubagentSettings } from "../agent/run-state.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import type { ModelClient } from "../model/model-client.js";
import { type PriceTable, replyCostUsd } from "../model/pricing.js";
import type { Task } from "../task/schema.js";
import { MAX_TIMER_MS } from "../timer.js";
import type { Tool } from "../tools/define-tool.js";
import { createTools } from "../tools/index.js";
import type { Sandbox } from "../tools/sandbox.js";
import { pricedModelAt } from "./model-usage.js";
import type { RecordedSteps } from "./run-options.js";
import { createFinalOutput } from "./structured-output.js";

/** What the loop needs from a task run. */
export type AgentSetup = {
  task: Task;
  modelName: string;
  model: ModelClient;
  /** The model of the subagent a `task` call starts; default `model`. */
  subagentModel?: ((toolUseId: string) => ModelClient) | undefined;
  system: string;
  prices: PriceTable;
  /** The complete environment of the agent's commands (see `taskCommandEnv`). */
  commandEnv: Record<string, string>;
  sandbox: Sandbox;
  /** A fork's recorded steps, priced as the recorded model (see `RunTaskOptions`). */
  recordedSteps?: RecordedSteps | undefined;
  /** Paths inside the workspace the sandbox keeps read-only (see `sandboxReadOnlyPaths`). */
  readOnlyPaths: Promise<readonly string[]>;
  /** The batch's cancellation; a reason of "timeout" ends the run as a timeout (a replay's). */
  signal: AbortSignal;
  /** A limit from outside the task (the batch budget), asked before each model call. */
  gate?: (() => LimitHit | undefined) | undefined;
  /** Settles once the tools may change the workspace (see `RunAgentOptions.ready`). */
  ready: Promise<void>;
  /** agent-run's own folders (the output and run folders), which the file tools refuse. */
  protectedPaths: readonly string[];
  /** The MCP servers' tools, offered after the built-in ones. */
  mcpTools: readonly Tool[];
};

/**
 * Runs the loop in `workspaceRoot` with the task's wall-clock timeout, the batch's cancellation
 * and `stop` (the transcript could not be written) folded into one signal.
 */
export async function runAgentWithLimits(
  setup: AgentSetup,
  workspaceRoot: string,
  onEvent: (event: AgentEvent) => void,
  stop: AbortSignal,
): Promise<RunResult> {
  const { task } = setup;
  const controller = new AbortController();
  const cancel = () =>
    controller.abort(setup.signal.reason === "timeout" ? "timeout" : "cancelled");
  if (setup.signal.aborted || stop.aborted) cancel();
  setup.signal.addEventListener("abort", cancel, { once: true });
  stop.addEventListener("abort", cancel, { once: true });
  const timer = setTimeout(
    () => controller.abort("timeout"),
    Math.min(task.limits.timeoutMs, MAX_TIMER_MS),
  );
  try {
    return await runAgent({
      model: setup.model,
      modelName: setup.modelName,
      system: setup.system,
      prompt: task.prompt,
      reasoning: task.reasoning,
      tools: [...builtInTools(setup), ...setup.mcpTools],
      limits: task.limits,
      workspaceRoot,
      signal: controller.signal,
      onEvent,
      costOf: (reply, step) => replyCostUsd(setup.prices, pricedModelAt(setup, step), reply),
      ready: setup.ready,
      subagents: subagentSettings(setup),
      output: task.output === undefined ? undefined : createFinalOutput(task.output),
      ...(setup.gate === undefined ? {} : { gate: setup.gate }),
    });
  } finally {
    clearTimeout(timer);
    setup.signal.removeEventListener("abort", cancel);
    stop.removeEventListener("abort", cancel);
  }
}

/** The `task` tool's settings, when the task offers it. */
function subagentSettings(setup: AgentSetup): SubagentSettings | undefined {
  const { task } = setup;
  if (!task.tools.includes("task")) return undefined;
  return {
    maxSteps: task.subagents.maxSteps,
    maxDepth: task.subagents.maxDepth,
    systemFor: (tools) => buildSystemPrompt(task.system, tools, true),
    modelFor: setup.subagentModel ?? (() => setup.model),
  };
}

/** The task's built-in tools and its command tools, with its bash settings. */
function builtInTools(setup: AgentSetup): Tool[] {
  const { task } = setup;
  return createTools(task.tools, {
    bash: {
      timeoutMs: task.bash.timeoutMs,
      env: setup.commandEnv,
      policy: {
        allow: task.bash.allow,
        deny: task.bash.deny,
        flagAllow: task.bash.flagAllow,
        flagDeny: task.bash.flagDeny,
      },
      maxOutputChars: task.bash.maxOutputChars,
      maxRecordedChars: task.bash.maxRecordedChars,
      sandbox: setup.sandbox,
      sandboxLimits: task.sandboxLimits,
      readOnlyPaths: setup.readOnlyPaths,
    },
    commandTools: task.commandTools,
    protectedPaths: setup.protectedPaths,
    allowGitWrites: task.allowGitChanges,
  });
}
