import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { TaskFileError } from "../errors.js";
import type { ApiMessage, AssistantBlock } from "../model/model-client.js";
import { describeIssue, problemsFromIssues } from "./describe-issue.js";
import { describeValue } from "./describe-value.js";
import { compareProblems } from "./load-task.js";
import { createLocator } from "./yaml-locator.js";

/** A missing field's message says what the block needs there; other mistakes get the usual words. */
const needs = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `required field is missing; ${what}` : undefined;

// Tagged by `type`, so a bad block gets the issues of its own type (or of its tag), not "Invalid input".
const BlockSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("text"),
      text: z.string({ error: needs("a text block needs text: a string") }),
    })
    .strict(),
  z
    .object({
      type: z.literal("tool_use"),
      id: z.string().min(1).optional(),
      name: z
        .string({
          error: needs("a tool_use block needs name: the tool to call, such as read_file"),
        })
        .min(1),
      input: z.record(z.string(), z.unknown(), {
        error: needs(
          "a tool_use block needs input: a mapping of the tool's arguments ({} for none)",
        ),
      }),
    })
    .strict(),
  z
    .object({
      type: z.literal("thinking"),
      thinking: z.string({ error: needs("a thinking block needs thinking: a string") }),
      signature: z.string().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("redacted_thinking"),
      data: z.string({ error: needs("a redacted_thinking block needs data: a string") }),
    })
    .strict(),
  // Another provider's reasoning (DeepSeek's reasoning_content), as the transcript records it.
  z
    .object({
      type: z.literal("reasoning"),
      text: z.string({ error: needs("a reasoning block needs text: a string") }),
    })
    .strict(),
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
    content: z
      .array(BlockSchema, {
        error: needs(
          "a reply needs content: a list of blocks, such as [{ type: text, text: done }]",
        ),
      })
      .min(1, "expected at least one block, such as { type: text, text: done }"),
    stop_reason: z.string().optional(),
    usage: UsageSchema.optional(),
  })
  .strict();

export type ScriptedReply = z.infer<typeof ScriptedReplySchema>;

const RepliesFileSchema = z
  .array(ScriptedReplySchema, {
    error: (issue) =>
      issue.code === "invalid_type"
        ? `expected a list of replies, each starting with "- content:", got ${describeValue(issue.input)}`
        : undefined,
  })
  .min(1, "expected at least one reply");

/**
 * Reads a replies file: a YAML (or JSON) list of replies. Errors name the file and line, like
 * task-file errors, since they are the same kind of operator mistake.
 */
export async function loadReplies(file: string, displayName = file): Promise<ApiMessage[]> {
  const text = await readFile(file, "utf8");
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: "error" });
  const syntaxError = doc.errors[0];
  if (syntaxError !== undefined) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    const message = syntaxError.message.split("\n")[0] ?? "";
    throw new TaskFileError([{ file: displayName, line, column: col, path: "", message }]);
  }
  const data: unknown = doc.toJS();
  const parsed = RepliesFileSchema.safeParse(data, { error: describeIssue, jitless: true });
  if (!parsed.success) {
    const locator = createLocator(doc, lineCounter);
    const issues = parsed.error.issues;
    throw new TaskFileError(
      problemsFromIssues(displayName, issues, data, locator, RepliesFileSchema).sort(
        compareProblems,
      ),
    );
  }
  return parsed.data.map((reply, index) => toApiMessage(reply, index));
}

/** The replies as served to a run of `model`: a scripted reply carries the run's model name. */
export function asRepliesOf(replies: readonly ApiMessage[], model: string): ApiMessage[] {
  return replies.map((reply) => ({ ...reply, model }));
}

/**
 * Fills in what a hand-written reply may leave out: ids, stop reason, usage, and a placeholder
 * model name (`asRepliesOf` gives the run's).
 */
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
