import type { Message } from "../model/model-client.js";

/** What replaces an old tool result once the conversation outgrows its context budget. */
export const ELIDED_RESULT =
  "[this tool result was removed to keep the conversation within its context budget; run the tool again if you need it]";

/** Characters per token, roughly: close enough to keep requests under a budget without a tokenizer. */
const CHARS_PER_TOKEN = 4;

/** A conversation's size in tokens, as the budget estimates it from its characters. */
export function estimatedTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** A message's size in characters, as the budget counts it. */
export function messageChars(message: Message): number {
  return typeof message.content === "string"
    ? message.content.length
    : message.content.reduce((sum, block) => sum + JSON.stringify(block).length, 0);
}

/**
 * Keeps the conversation under `maxTokens` by replacing the oldest tool results' content with a
 * short placeholder, in place (the transcript keeps everything). `chars` is the conversation's
 * current size with the system prompt and tools. It trims down to 70% of the budget at once, so
 * the cached prefix changes rarely rather than every turn, and never touches the newest `keepLast`
 * messages. Returns the new size and how many results it removed.
 */
export function fitContext(
  messages: Message[],
  maxTokens: number,
  chars: number,
  keepLast = 2,
): { chars: number; removed: number } {
  if (chars / CHARS_PER_TOKEN <= maxTokens) return { chars, removed: 0 };
  const targetChars = maxTokens * 0.7 * CHARS_PER_TOKEN;
  let size = chars;
  let removed = 0;
  for (const message of messages.slice(0, Math.max(0, messages.length - keepLast))) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type !== "tool_result" || block.content === ELIDED_RESULT) continue;
      size -= block.content.length - ELIDED_RESULT.length;
      block.content = ELIDED_RESULT;
      removed += 1;
      if (size <= targetChars) return { chars: size, removed };
    }
  }
  return { chars: size, removed };
}
