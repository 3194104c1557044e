import type { ToolUseBlock } from "./model-client.js";

/**
 * A tool call the model wrote but that cannot run as written (text protocol: a `tool:` line that
 * does not parse, an unknown tool, a second call in one reply). A client that reads calls out of
 * text turns it into a `tool_use` block with this reserved name, which no tool has; the loop
 * answers it with an `is_error` result carrying `input.error`, so it reaches the model, the
 * transcript, the reports and the loop guard like any failed call. `input.malformed` marks the
 * ones that count towards `MAX_MALFORMED_IN_A_ROW`.
 */
export const PROTOCOL_ERROR_TOOL = "tool_protocol_error";

/** Replies in a row whose call was malformed before the run ends with status `protocol_error`. */
export const MAX_MALFORMED_IN_A_ROW = 3;

export type ProtocolErrorInput = { error: string; malformed: boolean };

/** The block a client puts in a reply for a call it could not read. */
export function protocolErrorBlock(
  id: string,
  error: string,
  malformed: boolean,
): ToolUseBlock & { input: ProtocolErrorInput } {
  return { type: "tool_use", id, name: PROTOCOL_ERROR_TOOL, input: { error, malformed } };
}

/** The message of a protocol-error block, or undefined for any other call. */
export function protocolErrorOf(call: ToolUseBlock): ProtocolErrorInput | undefined {
  if (call.name !== PROTOCOL_ERROR_TOOL) return undefined;
  const input = call.input;
  if (typeof input !== "object" || input === null) return { error: "", malformed: true };
  const { error, malformed } = input as Record<string, unknown>;
  return {
    error: typeof error === "string" ? error : "",
    malformed: malformed === true,
  };
}
