import {
  type AssistantBlock,
  invalidJsonArgumentsOf,
  type Message,
  type ModelRequest,
  type ToolResultBlock,
} from "../model-client.js";
import type { OpenAICompat } from "./compat.js";
import { type ToolNameMap, toWireId } from "./tool-names.js";

/** A chat-completions message as this client sends it (a subset of the API's shapes). */
export type ChatMessage =
  | { role: "system" | "developer" | "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: WireToolCall[];
      reasoning_content?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

type WireToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

/** What a call left without a result gets, so the server sees every call answered. */
export const MISSING_RESULT_TEXT = "error: this tool call got no result, so it was not run";

/** The request body for `chat.completions.create`, from the neutral request. */
export function toChatParams(request: ModelRequest, compat: OpenAICompat, names: ToolNameMap) {
  const tools = request.tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: names.toWire(tool.name),
      description: tool.description,
      parameters: { type: "object", ...tool.inputSchema },
      ...(compat.strictTools ? { strict: true } : {}),
    },
  }));
  return {
    model: request.model,
    messages: toChatMessages(request, compat, names),
    [compat.maxTokensField]: request.maxOutputTokens,
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && compat.sendToolChoice ? { tool_choice: "auto" as const } : {}),
    ...(compat.streamUsage ? { stream_options: { include_usage: true } } : {}),
    // A thinking budget is the Messages API's; task validation refuses it for this API.
    ...(request.reasoning?.effort === undefined
      ? {}
      : { reasoning_effort: request.reasoning.effort }),
  };
}

/**
 * The conversation in chat-completions form: the system prompt first, each assistant turn
 * followed by one `tool` message per call (its result from the next user turn, in call order),
 * then that user turn's text. Tool results no call asked for are dropped (the server rejects them).
 */
export function toChatMessages(
  request: ModelRequest,
  compat: OpenAICompat,
  names: ToolNameMap,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.system !== "") {
    messages.push({ role: compat.developerRole ? "developer" : "system", content: request.system });
  }
  request.messages.forEach((message, index) => {
    if (message.role === "assistant") {
      const results = toolResultsOf(request.messages[index + 1]);
      messages.push(...assistantTurn(message.content, results, compat, names));
    } else {
      const text = userText(message);
      if (text !== "") messages.push({ role: "user", content: text });
    }
  });
  return messages;
}

function assistantTurn(
  content: readonly AssistantBlock[],
  results: ReadonlyMap<string, ToolResultBlock>,
  compat: OpenAICompat,
  names: ToolNameMap,
): ChatMessage[] {
  const text = joinTexts(content, "text");
  const calls = content.flatMap((block) =>
    block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string"
      ? [{ id: block.id, name: block.name, input: block.input }]
      : [],
  );
  if (text === "" && calls.length === 0) return [];
  const reasoning = joinTexts(content, "reasoning");
  const turn: ChatMessage = {
    role: "assistant",
    content: text === "" ? null : text,
    ...(calls.length > 0
      ? {
          tool_calls: calls.map((call) => ({
            id: toWireId(call.id),
            type: "function" as const,
            function: { name: names.toWire(call.name), arguments: argumentsOf(call.input) },
          })),
        }
      : {}),
    ...(compat.reasoningSendBack && calls.length > 0 ? { reasoning_content: reasoning } : {}),
  };
  const answers = calls.map((call): ChatMessage => {
    const result = results.get(call.id);
    const body = result === undefined ? MISSING_RESULT_TEXT : result.content;
    const content = result?.is_error === true ? `error: ${body}` : body;
    return { role: "tool", tool_call_id: toWireId(call.id), content };
  });
  return [turn, ...answers];
}

/** The arguments as the model sent them: JSON, or the raw text it sent that was not JSON. */
function argumentsOf(input: unknown): string {
  return invalidJsonArgumentsOf(input) ?? JSON.stringify(input ?? {});
}

function toolResultsOf(message: Message | undefined): Map<string, ToolResultBlock> {
  const results = new Map<string, ToolResultBlock>();
  if (message?.role !== "user" || typeof message.content === "string") return results;
  for (const block of message.content) {
    if (block.type === "tool_result" && !results.has(block.tool_use_id)) {
      results.set(block.tool_use_id, block);
    }
  }
  return results;
}

function userText(message: Message & { role: "user" }): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n\n");
}

/** The texts of the blocks of one type (`text` or `reasoning`), joined. */
function joinTexts(content: readonly AssistantBlock[], type: "text" | "reasoning"): string {
  return content
    .flatMap((block) => (block.type === type && typeof block.text === "string" ? [block.text] : []))
    .join("\n");
}
