import type { AgentEvent } from "../agent/events.js";
import type { PermissionDenialShape, UserLineShape } from "./line-schemas.js";

// Every `tool_use` of the transcript gets a `tool_result`, as the Agent SDK's consumers expect:
// a call the run ended before (the loop guard, a limit, a cancellation) is closed by a line that
// says it never ran.

/** A tool call of the run still without its result. */
type OpenCall = { step: number; id: string; name: string; parentToolUseId: string | null };

/** Follows a run's events: the tool calls still open, and the calls the command policy refused. */
export type ToolCallLedger = {
  onEvent(event: AgentEvent): void;
  /** `user` lines answering each open call with an error that gives `reason`; none stay open. */
  closeOpen(reason: string): UserLineShape[];
  /** The same for the open calls of the subagent the `task` call `toolUseId` started. */
  closeSubagent(toolUseId: string, reason: string): UserLineShape[];
  /** The calls the command policy refused, as the result line's `permission_denials`. */
  denials(): PermissionDenialShape[];
};

/** A call's key: its id within its agent (a hostile endpoint may give two agents' calls one id). */
function keyOf(parentToolUseId: string | null, id: string): string {
  return `${parentToolUseId ?? ""}\u0000${id}`;
}

export function createToolCallLedger(): ToolCallLedger {
  const open = new Map<string, OpenCall>();
  const denials: PermissionDenialShape[] = [];
  return {
    onEvent(event) {
      if (event.type === "model_reply") {
        for (const block of event.reply.content) {
          if (block.type === "tool_use" && typeof block.id === "string") {
            const name = typeof block.name === "string" ? block.name : String(block.name);
            const parentToolUseId = event.subagent?.parentToolUseId ?? null;
            const call = { step: event.step, id: block.id, name, parentToolUseId };
            open.set(keyOf(parentToolUseId, block.id), call);
          }
        }
      } else if (event.type === "tool_result") {
        open.delete(keyOf(event.subagent?.parentToolUseId ?? null, event.block.tool_use_id));
        if (event.isRefused === true) {
          denials.push({
            tool_name: event.toolName,
            tool_use_id: event.block.tool_use_id,
            tool_input: asRecord(event.input),
          });
        }
      }
    },
    closeOpen(reason) {
      const lines = [...open.values()].map((call) => notRunLine(call, reason));
      open.clear();
      return lines;
    },
    closeSubagent(toolUseId, reason) {
      const calls = [...open.values()].filter((call) => call.parentToolUseId === toolUseId);
      for (const call of calls) open.delete(keyOf(call.parentToolUseId, call.id));
      return calls.map((call) => notRunLine(call, reason));
    },
    denials: () => [...denials],
  };
}

function notRunLine(call: OpenCall, reason: string): UserLineShape {
  return {
    type: "user",
    message: {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: call.id,
          content: `not run: ${reason}`,
          is_error: true,
        },
      ],
    },
    parent_tool_use_id: call.parentToolUseId,
    step: call.step,
    tool_name: call.name,
    not_run: true,
  };
}

/** A tool's input as the SDK's `tool_input` record; anything but an object is kept under `input`. */
function asRecord(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? { ...input }
    : { input };
}
