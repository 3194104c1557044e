import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { TaskFileError } from "../errors.js";
import type { ApiMessage, AssistantBlock } from "../model/model-client.js";

const BlockSchema = z.union([
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z
    .object({
      type: z.literal("tool_use"),
      id: z.string().min(1).optional(),
      name: z.string().min(1),
      input: z.record(z.string(), z.unknown()),
    })
    .strict(),
  z
    .object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() })
    .strict(),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }).strict(),
  // Another provider's reasoning (DeepSeek's reasoning_content), as the transcript records it.
  z.object({ type: z.literal("reasoning"), text: z.string() }).strict(),
]);

const UsageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative().default(0),
    output_tokens: z.number().int().nonnegative().default(0),
    cache_creation_input_tokens: z.number().int().nonnegative().default(0),
    cache_read_input_tokens: z.number().int().nonnegative().default(0),
  })
  .strict();

/** One scripted model turn: Messages API content blocks, optional stop reason and usage. */
export const ScriptedReplySchema = z
  .object({
    content: z.array(BlockSchema).min(1),
    stop_reason: z.string().optional(),
    usage: UsageSchema.optional(),
  })
  .strict();

export type ScriptedReply = z.infer<typeof ScriptedReplySchema>;

const RepliesFileSchema = z.array(ScriptedReplySchema).min(1, "expected at least one reply");

/**
 * Reads a replies file: a YAML (or JSON) list of replies. Errors name the file and line, like
 * task-file errors, since they are the same kind of operator mistake.
 */
export async function loadReplies(file: string, displayName = file): Promise<ApiMessage[]> {
  const text = await readFile(file, "utf8");
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: "error" });
  const fail = (offset: number, path: string, message: string): never => {
    const { line, col } = lineCounter.linePos(offset);
    throw new TaskFileError([{ file: displayName, line, column: col, path, message }]);
  };
  const syntaxError = doc.errors[0];
  if (syntaxError !== undefined)
    fail(syntaxError.pos[0], "", syntaxError.message.split("\n")[0] ?? "");
  const parsed = RepliesFileSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path ?? [];
    const node = doc.getIn(path, true);
    const offset = isNodeWithRange(node) ? node.range[0] : 0;
    fail(offset, path.map(String).join("."), issue?.message ?? "invalid replies file");
  }
  return (parsed.data ?? []).map((reply, index) => toApiMessage(reply, index));
}

/** Fills in what a hand-written reply may leave out: ids, stop reason, usage. */
export function toApiMessage(reply: ScriptedReply, index: number): ApiMessage {
  let toolIndex = 0;
  const content = reply.content.map((block): AssistantBlock => {
    if (block.type !== "tool_use") return block;
    toolIndex += 1;
    return { ...block, id: block.id ?? `toolu_scripted_${index + 1}_${toolIndex}` };
  });
  const hasToolUse = content.some((block) => block.type === "tool_use");
  return {
    id: `msg_scripted_${index + 1}`,
    type: "message",
    role: "assistant",
    model: "scripted",
    content,
    stop_reason: reply.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: UsageSchema.parse(reply.usage ?? {}),
  };
}

function isNodeWithRange(node: unknown): node is { range: [number, number, number] } {
  return typeof node === "object" && node !== null && "range" in node && Array.isArray(node.range);
}
