import { z } from "zod";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import { type AgentDraft, addToolResult, callOfLastReply } from "./atif-agent.js";
import type { JsonObject } from "./atif-types.js";
import { lineError } from "./export-init.js";

// The `user` lines of a transcript as ATIF has them: a tool's result joins the observation of
// the reply that called it; a text agent-run sent (a cut-off notice) is a user step of its own.

const ToolResultSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.string(),
  is_error: z.boolean().optional(),
});

export type UserLine = Extract<TranscriptLine, { type: "user" }>;

/** A tool's result, for a call of the agent's last reply; what agent-run noted goes in `extra`. */
export function addResult(
  agent: AgentDraft,
  line: UserLine,
  path: string,
  lineNumber: number,
): void {
  const block = ToolResultSchema.safeParse(line.message.content[0]);
  if (!block.success || line.message.content.length !== 1) {
    throw lineError(
      path,
      lineNumber,
      "a tool result line holds one tool_result block with string content",
    );
  }
  const id = block.data.tool_use_id;
  if (callOfLastReply(agent, id) === undefined) {
    throw lineError(
      path,
      lineNumber,
      `a result for the call "${id}", which the agent's last reply did not make`,
    );
  }
  const flags = {
    not_run: line.not_run,
    permission_denied: line.permission_denied,
    interrupted: line.interrupted,
    from_recording: line.from_recording,
  };
  const extra: JsonObject = {
    ...(block.data.is_error === true ? { is_error: true } : {}),
    ...(typeof line.exit_code === "number" || line.exit_code === null
      ? { exit_code: line.exit_code }
      : {}),
    ...Object.fromEntries(Object.entries(flags).filter(([, value]) => value === true)),
  };
  addToolResult(agent, {
    source_call_id: id,
    content: block.data.content,
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  });
}

const TextBlocksSchema = z
  .array(z.looseObject({ type: z.literal("text"), text: z.string() }))
  .min(1);

/** The text agent-run sent as the user (a notice that a reply was cut off). */
export function userText(line: UserLine, path: string, lineNumber: number): string {
  const blocks = TextBlocksSchema.safeParse(line.message.content);
  if (!blocks.success)
    throw lineError(path, lineNumber, "a user line without a tool result holds text blocks only");
  return blocks.data.map((block) => block.text).join("\n");
}
