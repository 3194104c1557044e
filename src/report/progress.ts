import type { AgentEvent } from "../agent/events.js";
import { limitFigures } from "../agent/limit-text.js";
import { formatCost, formatCount, formatDuration, oneLine } from "../format.js";
import { type SdkWarning, textOf, totalTokens } from "../model/model-client.js";
import type { Reporter } from "./reporter.js";
import { runLabel } from "./run-folders.js";

export type ProgressOptions = {
  /** Receives each finished line and the task it is about. */
  write: (line: string, taskName: string) => void;
  isColor: boolean;
  isVerbose: boolean;
};

/** Live progress for stderr: one plain line per tool call, retry, limit and task end. */
export type ProgressReporter = Required<Omit<Reporter, "onBatchEnd">>;

const GREEN = "\u001b[32m";
const RED = "\u001b[31m";
const YELLOW = "\u001b[33m";
const DIM = "\u001b[2m";
const RESET = "\u001b[0m";

/**
 * Creates the stderr reporter; colours only when asked (a TTY without `CI` or `NO_COLOR`). An SDK's
 * warning is logged once per batch, in the task that met it first: the SDK repeats it on every call.
 */
export function createProgressReporter(options: ProgressOptions): ProgressReporter {
  const paint = (code: string, text: string) => (options.isColor ? `${code}${text}${RESET}` : text);
  const say = (name: string, text: string) =>
    options.write(`${paint(DIM, `[${name}]`)} ${text}`, name);
  const isNewWarning = firstTimeFilter();
  return {
    onTaskStart(name, detail) {
      say(name, `started (${detail})`);
    },
    onEvent(name, event) {
      if (event.type === "model_warning" && !isNewWarning(event.warning)) return;
      for (const line of describeEvent(event, options.isVerbose, paint)) say(name, line);
    },
    onCheck(name, check) {
      const text = `check ${check.passed ? "passed" : "FAILED"}: ${oneLine(check.name, 200)}${check.passed ? "" : ` (${oneLine(check.message, 200)})`}`;
      say(name, check.passed ? text : paint(RED, text));
    },
    onTaskRetry(summary, next, max) {
      const kind = summary.errorKind === undefined ? "" : ` (${summary.errorKind})`;
      const reason = summary.error === undefined ? "" : `: ${oneLine(summary.error, 300)}`;
      say(
        runLabel(summary),
        paint(
          YELLOW,
          `${summary.status}${kind}${reason}; running it again (attempt ${next} of ${max})`,
        ),
      );
    },
    onTaskEnd(summary) {
      const colour = summary.passed ? GREEN : RED;
      const passedChecks = summary.checks.filter((check) => check.passed).length;
      const checks =
        summary.checks.length === 0
          ? ""
          : `, checks ${passedChecks}/${summary.checks.length} passed`;
      const figures = `${plural(summary.steps, "step")}, ${formatCount(totalTokens(summary.usage))} tokens, ${formatCost(summary.costUsd)}, ${plural(summary.changedFiles.length, "file")} changed, ${formatDuration(summary.durationMs)}`;
      const reason = summary.error === undefined ? "" : `: ${oneLine(summary.error, 300)}`;
      const attempt = (summary.attempt ?? 1) > 1 ? ` on attempt ${summary.attempt}` : "";
      say(
        runLabel(summary),
        `${paint(colour, summary.status)}${attempt}${checks} (${figures})${reason}`,
      );
    },
  };
}

/** The log lines for one agent event (most events have one, some none). */
function describeEvent(
  event: AgentEvent,
  isVerbose: boolean,
  paint: (code: string, text: string) => string,
): string[] {
  switch (event.type) {
    case "model_reply":
      return describeReply(event, isVerbose);
    case "tool_result": {
      const isError = event.block.is_error === true;
      const outcome = [
        ...(event.exitCode === undefined ? [] : [`exit ${event.exitCode ?? "killed"}`]),
        ...(isError && event.exitCode === undefined ? ["error"] : []),
        formatDuration(event.durationMs),
      ].join(", ");
      const text = `${stepOf(event)} ${event.toolName}: ${describeInput(event.toolName, event.input)} (${outcome})`;
      if (!isError) return [text];
      return [
        paint(YELLOW, text),
        ...(isVerbose ? [`  ${oneLine(event.block.content, 200)}`] : []),
      ];
    }
    case "model_retry": {
      const { notice } = event;
      return [
        paint(
          YELLOW,
          `${stepOf(event)} model call failed (${notice.status ?? notice.error}); retry ${notice.attempt} of ${notice.maxRetries}`,
        ),
      ];
    }
    case "model_warning":
      return [paint(YELLOW, `agent-run: ${describeSdkWarning(event.warning)}`)];
    case "context_trimmed":
      return [
        `${stepOf(event)} context: ${plural(event.removedResults, "old tool result")} elided to stay under ${formatCount(event.maxTokens)} tokens`,
      ];
    case "limit_reached":
      return [paint(RED, `${stepOf(event)} ${limitName(event)} reached ${limitFigures(event)}`)];
    case "mcp_server_failed":
      return [
        paint(
          YELLOW,
          `MCP server ${JSON.stringify(event.name)} failed to start: ${oneLine(event.error, 300)}`,
        ),
      ];
    case "runner_message":
      return [
        paint(YELLOW, `${stepOf(event)} agent-run to the model: ${oneLine(event.text, 300)}`),
      ];
    case "plan_updated":
      return [`${stepOf(event)} plan: ${describePlan(event.items)}`];
    case "subagent_start":
      return [
        `${stepOf(event)} subagent started: ${oneLine(event.description, 100)} (${event.tools.join(", ") || "no tools"}; at most ${plural(event.maxSteps, "step")})`,
      ];
    case "subagent_end": {
      const { result } = event;
      const text = `${stepOf(event)} subagent ended: ${result.status} after ${plural(result.steps, "step")} (${formatCount(totalTokens(result.usage))} tokens, ${formatCost(result.costUsd)})`;
      return [result.status === "completed" ? text : paint(YELLOW, text)];
    }
    default:
      return [];
  }
}

/** The log lines for a model reply: its text when it ends the turn (or always, when verbose). */
function describeReply(
  event: Extract<AgentEvent, { type: "model_reply" }>,
  isVerbose: boolean,
): string[] {
  const text = textOf(event.reply.content);
  const hasToolCalls = event.reply.content.some((block) => block.type === "tool_use");
  if (hasToolCalls)
    return isVerbose && text !== "" ? [`${stepOf(event)} says: ${oneLine(text, 300)}`] : [];
  const label =
    event.reply.stopReason === "max_tokens"
      ? "reply cut off at the output token limit; asking the model to continue"
      : event.reply.stopReason === "pause_turn"
        ? "reply paused; continuing"
        : "final reply";
  return [
    `${stepOf(event)} ${label} (${formatDuration(event.durationMs)}): ${oneLine(text, isVerbose ? 300 : 100)}`,
  ];
}

/**
 * `step 3`, or for a subagent's event the step of the task call that started it, then its own:
 * `step 3 subagent step 2`.
 */
function stepOf(event: AgentEvent & { step: number }): string {
  return event.subagent === undefined
    ? `step ${event.step}`
    : `step ${event.subagent.rootStep} subagent step ${event.step}`;
}

/** The limit as the log names it: a subagent's own step limit is not the run's `max_steps`. */
function limitName(event: Extract<AgentEvent, { type: "limit_reached" }>): string {
  return event.limit === "max_steps" && (event.depth ?? 0) > 0
    ? "subagent step limit"
    : event.limit;
}

/** `1/3 completed, now: Add subtract(a, b) with a test`. */
function describePlan(items: readonly { content: string; status: string }[]): string {
  const done = items.filter((item) => item.status === "completed").length;
  const now = items.find((item) => item.status === "in_progress");
  return `${done}/${items.length} completed${now === undefined ? "" : `, now: ${oneLine(now.content, 100)}`}`;
}

/** `warning from the Anthropic SDK: The model 'claude-sonnet-4-5' is deprecated …`, on one line. */
function describeSdkWarning(warning: SdkWarning): string {
  return `warning from ${warning.source}: ${oneLine(warning.message, 500)}`;
}

/** A predicate true the first time it sees a warning (same SDK, same words), false after. */
export function firstTimeFilter(): (warning: SdkWarning) => boolean {
  const seen = new Set<string>();
  return (warning) => {
    const key = JSON.stringify([warning.source, warning.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** A short form of a tool call's input for the log. */
export function describeInput(toolName: string, input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields: Record<string, unknown> = { ...input };
  if (toolName === "task" && typeof fields.description === "string") {
    return oneLine(fields.description, 80);
  }
  if (toolName === "todo_write" && Array.isArray(fields.todos))
    return plural(fields.todos.length, "item");
  const main = toolName === "bash" ? fields.command : fields.path;
  return oneLine(typeof main === "string" ? main : JSON.stringify(input), 80);
}
