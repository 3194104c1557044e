import { z } from "zod";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import type { TextClipper } from "./view-bounds.js";
import type { ViewBlock, ViewToolCall, ViewToolResult } from "./view-data.js";

// The content of `assistant` and `user` lines, as the viewer reads it. The reader validated each
// line's shape but keeps content blocks loose (`{type}` and anything else): each is parsed here.

const ContentBlockSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("thinking"), thinking: z.string() }),
  z.object({ type: z.literal("reasoning"), text: z.string() }),
  z.object({ type: z.literal("redacted_thinking") }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() }),
]);

/** A reply's blocks; each tool call is also returned, to be matched with its result. */
export function replyBlocks(
  content: readonly { type: string }[],
  clip: TextClipper,
): { blocks: ViewBlock[]; calls: ViewToolCall[] } {
  const blocks: ViewBlock[] = [];
  const calls: ViewToolCall[] = [];
  for (const raw of content) {
    const parsed = ContentBlockSchema.safeParse(raw);
    if (!parsed.success) {
      blocks.push({ kind: "other", type: clip(raw.type).text });
      continue;
    }
    const block = parsed.data;
    switch (block.type) {
      case "text":
        blocks.push({ kind: "text", text: clip(block.text) });
        break;
      case "thinking":
        blocks.push({ kind: "reasoning", text: clip(block.thinking) });
        break;
      case "reasoning":
        blocks.push({ kind: "reasoning", text: clip(block.text) });
        break;
      case "redacted_thinking":
        blocks.push({ kind: "hidden_reasoning" });
        break;
      case "tool_use": {
        const call = { id: block.id, name: block.name, input: clip(describeInput(block.input)) };
        const viewCall = { ...call, result: null, subagent: null };
        calls.push(viewCall);
        blocks.push({ kind: "call", call: viewCall });
        break;
      }
      default:
        assertNever(block);
    }
  }
  return { blocks, calls };
}

const ResultBlockSchema = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});

/** agent-run's fields of a tool result's `user` line that the transcript reader leaves loose. */
const ResultLineFieldsSchema = z.object({
  exit_code: z.number().nullable().optional().catch(undefined),
  recorded_output: z.string().optional().catch(undefined),
  interrupted: z.literal(true).optional().catch(undefined),
});

/** A `user` line's tool result: the call's id and what it returned; undefined for a notice. */
export function toolResultOf(
  line: Extract<TranscriptLine, { type: "user" }>,
  clip: TextClipper,
): { callId: string; result: ViewToolResult } | undefined {
  const block = ResultBlockSchema.safeParse(line.message.content[0]);
  if (!block.success) return undefined;
  const fields = ResultLineFieldsSchema.parse(line);
  // The recorded output is the fuller one (the model got at most bash.max_output of it).
  const output = fields.recorded_output ?? resultText(block.data.content);
  const notes = [
    line.not_run === true ? "not run: the run ended first" : undefined,
    line.permission_denied === true ? "refused by the command policy" : undefined,
    fields.interrupted === true ? "interrupted" : undefined,
    line.from_recording === true ? "served from the recording" : undefined,
  ].filter((note) => note !== undefined);
  return {
    callId: block.data.tool_use_id,
    result: {
      output: clip(output),
      isError: block.data.is_error === true,
      durationMs: line.duration_ms ?? null,
      exitCode: fields.exit_code ?? null,
      notes,
    },
  };
}

/** The text of a `user` line that is no tool result (the runner's "continue" notice). */
export function noticeText(content: readonly { type: string }[]): string {
  return resultText(content);
}

const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });

function resultText(content: string | readonly { type: string }[] | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      const text = TextPartSchema.safeParse(part);
      return text.success ? text.data.text : `[${part.type} block]`;
    })
    .join("\n");
}

/**
 * A tool call's input in a readable shape: an object of plain values as `key: value` lines (a
 * string of several lines as an indented block, as an edit's old and new text read best), anything
 * nested as indented JSON.
 */
function describeInput(input: unknown): string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return prettyJson(input);
  const entries = Object.entries(input);
  if (
    !entries.every(([, value]) => isPlain(value) || (Array.isArray(value) && value.every(isPlain)))
  ) {
    return prettyJson(input);
  }
  return entries
    .map(([key, value]) =>
      typeof value === "string" && value.includes("\n")
        ? `${key}: |\n${value.replace(/\n$/, "").replace(/^/gm, "  ")}`
        : `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`,
    )
    .join("\n");
}

function isPlain(value: unknown): boolean {
  return value === null || typeof value !== "object";
}

function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

function assertNever(value: never): never {
  throw new Error(`unknown content block ${JSON.stringify(value)}`);
}
