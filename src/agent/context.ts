import { type AssistantBlock, isSignedBlock, type Message } from "../model/model-client.js";

/** What replaces an old tool result once the conversation outgrows its context budget. */
export const ELIDED_RESULT =
  "[this tool result was removed to keep the conversation within its context budget; run the tool again if you need it]";

/** What an assistant turn says when all it held was reasoning that trimming dropped. */
export const DROPPED_REASONING = "[this turn's reasoning was removed from what is sent]";

/** Characters per token, roughly: close enough to keep requests under a budget without a tokenizer. */
const CHARS_PER_TOKEN = 4;

/** A message's size in characters, as the budget counts it. */
export function messageChars(message: Message): number {
  return typeof message.content === "string"
    ? message.content.length
    : message.content.reduce((sum, block) => sum + JSON.stringify(block).length, 0);
}

/** What `fitContext` did: the new size, the results it elided and the signed blocks it dropped. */
export type Trim = { chars: number; removed: number; droppedReasoning: number };

/**
 * Keeps the conversation under `maxTokens` by replacing the oldest tool results' content with a
 * short placeholder, in place (the transcript keeps everything). `chars` is the conversation's
 * current size with the system prompt and tools. It trims down to 70% of the budget at once, so
 * the cached prefix changes rarely rather than every turn, and never touches the newest `keepLast`
 * messages.
 *
 * A signed block (thinking) is checked by the API against the conversation before it, so one
 * after an elided result would no longer pass: every signed block after the first result elided
 * now is dropped, in the same pass. The conversation then stays valid for good: blocks before that
 * result keep their prefix, and later blocks are signed over the trimmed conversation, which
 * never changes back.
 */
export function fitContext(
  messages: Message[],
  maxTokens: number,
  chars: number,
  keepLast = 2,
): Trim {
  if (chars / CHARS_PER_TOKEN <= maxTokens) return { chars, removed: 0, droppedReasoning: 0 };
  const targetChars = maxTokens * 0.7 * CHARS_PER_TOKEN;
  let size = chars;
  let removed = 0;
  let firstChanged: number | undefined;
  const candidates = messages.slice(0, Math.max(0, messages.length - keepLast));
  elide: for (const [index, message] of candidates.entries()) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type !== "tool_result" || block.content === ELIDED_RESULT) continue;
      size -= block.content.length - ELIDED_RESULT.length;
      block.content = ELIDED_RESULT;
      removed += 1;
      firstChanged ??= index;
      if (size <= targetChars) break elide;
    }
  }
  if (firstChanged === undefined) return { chars: size, removed, droppedReasoning: 0 };
  const dropped = dropSignedBlocksAfter(messages, firstChanged);
  return { chars: size - dropped.chars, removed, droppedReasoning: dropped.count };
}

/** Removes every signed block from the assistant turns after `index`, in place. */
function dropSignedBlocksAfter(messages: Message[], index: number) {
  let count = 0;
  let chars = 0;
  for (const [offset, message] of messages.slice(index + 1).entries()) {
    if (message.role !== "assistant" || !message.content.some(isSignedBlock)) continue;
    const before = messageChars(message);
    const kept = withoutSignedBlocks(message.content);
    count += message.content.filter(isSignedBlock).length;
    // A new message: the reply the transcript recorded keeps its blocks.
    messages[index + 1 + offset] = { role: "assistant", content: kept };
    chars += before - messageChars({ role: "assistant", content: kept });
  }
  return { count, chars };
}

/** A turn's blocks without its signed ones; a turn that was nothing else says so. */
export function withoutSignedBlocks(content: readonly AssistantBlock[]): AssistantBlock[] {
  const kept = content.filter((block) => !isSignedBlock(block));
  return kept.length > 0 ? kept : [{ type: "text", text: DROPPED_REASONING }];
}
