import type { AgentEvent } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import { textOf, totalTokens } from "../model/model-client.js";
import { formatCost, formatCount, formatDuration, oneLine } from "./format.js";
import type { TaskSummary } from "./summary.js";

export type ProgressOptions = {
  /** Receives each finished line and the task it is about. */
  write: (line: string, taskName: string) => void;
  isColor: boolean;
  isVerbose: boolean;
};

/** Live progress for stderr: one plain line per tool call, retry, limit and task end. */
export type ProgressReporter = {
  /** `detail`: the model and where the agent works, e.g. `claude-sonnet-5-5, offline, copy in agent-runs/x/workspace`. */
  onTaskStart(name: string, detail: string): void;
  onEvent(name: string, event: AgentEvent): void;
  onCheck(name: string, check: CheckResult): void;
  onTaskEnd(summary: TaskSummary): void;
};

const GREEN = "\u001b[32m";
const RED = "\u001b[31m";
const YELLOW = "\u001b[33m";
const DIM = "\u001b[2m";
const RESET = "\u001b[0m";

/** Creates the stderr reporter; colours only when asked (a TTY without `CI` or `NO_COLOR`). */
export function createProgressReporter(options: ProgressOptions): ProgressReporter {
  const paint = (code: string, text: string) => (options.isColor ? `${code}${text}${RESET}` : text);
  const say = (name: string, text: string) =>
    options.write(`${paint(DIM, `[${name}]`)} ${text}`, name);
  return {
    onTaskStart(name, detail) {
      say(name, `started (${detail})`);
    },
    onEvent(name, event) {
      switch (event.type) {
        case "model_reply":
          for (const line of describeReply(event, options.isVerbose)) say(name, line);
          return;
        case "tool_result": {
          const outcome = [
            ...(event.exitCode === undefined ? [] : [`exit ${event.exitCode ?? "killed"}`]),
            ...(event.block.is_error === true && event.exitCode === undefined ? ["error"] : []),
            formatDuration(event.durationMs),
          ].join(", ");
          const text = `step ${event.step} ${event.toolName}: ${describeInput(event.toolName, event.input)} (${outcome})`;
          say(name, event.block.is_error === true ? paint(YELLOW, text) : text);
          if (options.isVerbose && event.block.is_error === true)
            say(name, `  ${oneLine(event.block.content, 200)}`);
          return;
        }
        case "model_retry":
          say(
            name,
            paint(
              YELLOW,
              `step ${event.step} model call failed (${event.notice.status ?? event.notice.error}); retry ${event.notice.attempt} of ${event.notice.maxRetries}`,
            ),
          );
          return;
        case "context_trimmed":
          say(
            name,
            `step ${event.step} context: ${plural(event.removedResults, "old tool result")} elided to stay under ${formatCount(event.maxTokens)} tokens`,
          );
          return;
        case "limit_reached":
          say(
            name,
            paint(
              RED,
              `step ${event.step} ${event.limit} reached (${formatCount(event.used)} of ${formatCount(event.max)})`,
            ),
          );
          return;
        default:
          return;
      }
    },
    onCheck(name, check) {
      const text = `check ${check.passed ? "passed" : "FAILED"}: ${check.name}${check.passed ? "" : ` (${oneLine(check.message, 200)})`}`;
      say(name, check.passed ? text : paint(RED, text));
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
      say(summary.name, `${paint(colour, summary.status)}${checks} (${figures})${reason}`);
    },
  };
}

/** The log lines for a model reply: its text when it ends the turn (or always, when verbose). */
function describeReply(
  event: Extract<AgentEvent, { type: "model_reply" }>,
  isVerbose: boolean,
): string[] {
  const text = textOf(event.reply.content);
  const hasToolCalls = event.reply.content.some((block) => block.type === "tool_use");
  if (hasToolCalls)
    return isVerbose && text !== "" ? [`step ${event.step} says: ${oneLine(text, 300)}`] : [];
  const label =
    event.reply.stopReason === "max_tokens"
      ? "reply cut off at the output token limit; asking the model to continue"
      : event.reply.stopReason === "pause_turn"
        ? "reply paused; continuing"
        : "final reply";
  return [
    `step ${event.step} ${label} (${formatDuration(event.durationMs)}): ${oneLine(text, isVerbose ? 300 : 100)}`,
  ];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** A short form of a tool call's input for the log. */
function describeInput(toolName: string, input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields: Record<string, unknown> = { ...input };
  const main = toolName === "bash" ? fields.command : fields.path;
  return oneLine(typeof main === "string" ? main : JSON.stringify(input), 80);
}
