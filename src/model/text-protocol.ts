import type {
  AssistantBlock,
  Message,
  ModelClient,
  ModelReply,
  ModelRequest,
  ToolResultBlock,
  ToolSpec,
  ToolUseBlock,
} from "./model-client.js";
import { isSignedBlock, toModelReply } from "./model-client.js";
import { PROTOCOL_ERROR_TOOL, protocolErrorBlock } from "./protocol-error.js";
import { parseTextReply } from "./text-protocol-parse.js";

/** The format line, in the 200-line agent's words. */
export const TEXT_PROTOCOL_FORMAT =
  "When you want to use a tool, reply with exactly one line in the format: 'tool: TOOL_NAME({JSON_ARGS})' and nothing else. Use compact single-line JSON with double quotes. After receiving a tool_result(...) message, continue the task.";

/** Where a model that invents its own tool result is stopped (a raw newline cannot be in a JSON string). */
export const TOOL_RESULT_STOP = "\ntool_result(";

/**
 * The text tool protocol over any model: the tools are described in the system prompt (no `tools`
 * are sent), history calls and results become the protocol's lines, and the reply's `tool:` line
 * is read back into a `tool_use` block beside the text it came from. A call that cannot run
 * becomes a `PROTOCOL_ERROR_TOOL` block, which the loop answers with an error.
 */
export function withTextProtocol(inner: ModelClient): ModelClient {
  // Counted over every conversation of the run (the subagents' too): call ids stay unique.
  let replies = 0;
  return {
    async complete(request, options) {
      const reply = await inner.complete(toTextRequest(request), options);
      replies += 1;
      return fromTextReply(reply, request, replies);
    },
  };
}

/** The request the inner model gets: tools in the system prompt, history as text. */
export function toTextRequest(request: ModelRequest): ModelRequest {
  return {
    ...request,
    system: textSystemPrompt(request.system, request.tools),
    tools: [],
    messages: request.messages.map((message, index) =>
      toTextMessage(message, request.messages[index - 1]),
    ),
    stopSequences: [...(request.stopSequences ?? []), TOOL_RESULT_STOP],
  };
}

/** The task's system prompt, then each tool's name, description and JSON schema, then the format. */
export function textSystemPrompt(system: string, tools: readonly ToolSpec[]): string {
  const list = tools.map(
    (tool) =>
      `- ${tool.name}: ${tool.description}\n  JSON schema of its arguments: ${JSON.stringify({ type: "object", ...tool.inputSchema })}`,
  );
  const toolsPart = tools.length === 0 ? "You have no tools." : `Tools:\n${list.join("\n")}`;
  return `${system}\n\n${toolsPart}\n\n${TEXT_PROTOCOL_FORMAT}`;
}

function toTextMessage(message: Message, previous: Message | undefined): Message {
  if (message.role === "assistant") return { role: "assistant", content: assistantText(message) };
  if (typeof message.content === "string") return message;
  const names = new Map(
    previous?.role === "assistant"
      ? previous.content.filter(isToolUse).map((call) => [call.id, call.name])
      : [],
  );
  const parts = message.content.map((block) =>
    block.type === "tool_result" ? toolResultLine(block, names.get(block.tool_use_id)) : block,
  );
  return { role: "user", content: parts };
}

/**
 * An assistant turn as the model wrote it: its text (which, for a text-protocol reply, already
 * holds the call line). Calls without a line in the text (a native turn, forked onto the text
 * protocol) are written out as `tool:` lines; protocol-error blocks never are.
 */
function assistantText(message: Extract<Message, { role: "assistant" }>): AssistantBlock[] {
  const text = rawText(message.content);
  const hasCallLine = parseTextReply(text, [], false).kind !== "final";
  const lines = hasCallLine
    ? []
    : message.content
        .filter(isToolUse)
        .filter((call) => call.name !== PROTOCOL_ERROR_TOOL)
        .map((call) => `tool: ${call.name}(${JSON.stringify(call.input ?? {})})`);
  const whole = [text, ...lines].filter((part) => part.trim() !== "").join("\n");
  // Signed reasoning goes back verbatim, as the Messages API requires, ahead of the text.
  const signed = message.content.filter(isSignedBlock);
  return [...signed, { type: "text", text: whole === "" ? "(empty reply)" : whole }];
}

/**
 * A tool result as the protocol sends it back: `tool_result({"tool":…,"is_error":…,"content":…})`,
 * with `tool` the name of the call it answers (null when the history lost it).
 */
export function toolResultLine(block: ToolResultBlock, tool: string | undefined) {
  const json = JSON.stringify({
    tool: tool ?? null,
    is_error: block.is_error === true,
    content: block.content,
  });
  return { type: "text" as const, text: `tool_result(${json})` };
}

/**
 * The inner reply in the loop's terms. A reply that already holds `tool_use` blocks (a recorded
 * text-protocol reply, replayed; a server that called natively anyway) is returned as it is. Its
 * calls' ids are `toolu_text_<replyNumber>_<n>`.
 */
export function fromTextReply(
  reply: ModelReply,
  request: ModelRequest,
  replyNumber: number = request.messages.length,
): ModelReply {
  if (reply.content.some(isToolUse)) return reply;
  const text = rawText(reply.content);
  const parsed = parseTextReply(
    text,
    request.tools.map((tool) => tool.name),
    reply.stopReason === "max_tokens",
  );
  if (parsed.kind === "final") return reply;
  const id = (n: number) => `toolu_text_${replyNumber}_${n}`;
  const calls: ToolUseBlock[] =
    parsed.kind === "malformed"
      ? [protocolErrorBlock(id(1), parsed.error, true)]
      : [
          { type: "tool_use", id: id(1), name: parsed.name, input: parsed.input },
          ...(parsed.laterCalls === 0 ? [] : [laterCallsBlock(id(2), parsed.laterCalls)]),
        ];
  const others = reply.content.filter((block) => block.type !== "text");
  const content: AssistantBlock[] = [
    ...others,
    ...(parsed.kept.trim() === "" ? [] : [{ type: "text", text: parsed.kept }]),
    ...calls,
  ];
  // The kept reply ends at its call, as a native one does; the inner stop reason is recorded.
  return toModelReply({
    ...reply.message,
    content,
    stop_reason: "tool_use",
    text_protocol: { stop_reason: reply.stopReason, raw_text: text },
  });
}

function laterCallsBlock(id: string, count: number): ToolUseBlock {
  return protocolErrorBlock(
    id,
    `one tool call per reply: only your first call ran; the ${count} later ${count === 1 ? "call was" : "calls were"} not run. Send each call in its own reply, after the tool_result of the one before`,
    false,
  );
}

/** The reply's text blocks, joined as the model wrote them (not trimmed). */
function rawText(content: readonly AssistantBlock[]): string {
  return content
    .flatMap((block) =>
      block.type === "text" && typeof block.text === "string" ? [block.text] : [],
    )
    .join("\n");
}

function isToolUse(block: AssistantBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}
