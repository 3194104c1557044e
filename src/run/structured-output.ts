import type { JsonObject } from "../agent/events.js";
import type { FinalOutput, OutputVerdict } from "../agent/run-state.js";
import { messageOf } from "../errors.js";
import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { isRecord } from "../model/error-body.js";
import { MAX_TOOL_INPUT_DEPTH } from "../model/reply-limits.js";
import type { TaskOutput } from "../task/output-schema.js";
import { compileOutputSchema } from "../tools/input-schema.js";

// A final reply read as structured output: the JSON object it holds, bounded like any input from
// the model, and checked against the task's `output_schema`.

/** Longest final reply read as structured output: more than any reply's output tokens can hold. */
export const MAX_OUTPUT_REPLY_CHARS = 1_048_576;

/** Most problems one retry message lists; the rest are counted. */
const MAX_LISTED_PROBLEMS = 10;

/** A line that opens or closes a fenced code block (three backticks), with its info string. */
const FENCE = /^ {0,3}```(.*)$/;

/**
 * The JSON text of a final reply: the whole reply (trimmed) when it starts with `{`, else the
 * content of its last fenced block whose info string is `json` (any case) or empty; undefined
 * when it has neither. Read line by line: linear in the reply, whatever its fences.
 */
export function replyJsonText(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) return trimmed;
  let block: { isJson: boolean; lines: string[] } | undefined;
  let last: string | undefined;
  for (const line of trimmed.split(/\r?\n/)) {
    const fence = FENCE.exec(line);
    if (block === undefined) {
      const info = fence?.[1]?.trim().toLowerCase();
      if (info !== undefined) block = { isJson: info === "" || info === "json", lines: [] };
    } else if (fence !== null && fence[1]?.trim() === "") {
      if (block.isJson) last = block.lines.join("\n").trim();
      block = undefined;
    } else {
      block.lines.push(line);
    }
  }
  return last;
}

/** The reply's JSON object, or what is wrong with it (in words for the model). */
export function parseReplyJson(
  text: string,
): { ok: true; value: JsonObject } | { ok: false; problem: string } {
  if (text.length > MAX_OUTPUT_REPLY_CHARS) {
    return { ok: false, problem: `it is longer than ${MAX_OUTPUT_REPLY_CHARS} characters` };
  }
  const json = replyJsonText(text);
  if (json === undefined || json === "") {
    return { ok: false, problem: "it holds no JSON object (the whole reply, or a ```json block)" };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, problem: `it is not valid JSON: ${clip(messageOf(error), 300)}` };
  }
  if (!isRecord(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return { ok: false, problem: `its JSON is ${kind}, not an object` };
  }
  // The object may nest as deep as a tool's input may.
  if (nestsDeeperThan(value, MAX_TOOL_INPUT_DEPTH)) {
    return { ok: false, problem: `its JSON nests deeper than ${MAX_TOOL_INPUT_DEPTH} levels` };
  }
  return { ok: true, value };
}

/**
 * The loop's judge of final replies for a task's `output_schema` (compiled once here; the task's
 * loader or the transcript's reader has already refused one that does not compile).
 */
export function createFinalOutput(output: TaskOutput): FinalOutput {
  const compiled = compileOutputSchema(output.schema);
  if (!compiled.ok) {
    throw new Error(`output_schema passed the loader but does not compile: ${compiled.message}`);
  }
  return {
    maxRetries: output.maxRetries,
    check: (text): OutputVerdict => {
      const parsed = parseReplyJson(text);
      if (!parsed.ok) return { ok: false, problems: parsed.problem };
      const problems = compiled.problemsOf(parsed.value);
      if (problems.length === 0) return { ok: true, value: parsed.value };
      return { ok: false, problems: listProblems(problems) };
    },
  };
}

/** `it does not match output_schema: /a: must be string; (the object): …; and 3 more problems`. */
function listProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
  const more = problems.length - listed.length;
  const tail = more > 0 ? `; and ${more} more ${more === 1 ? "problem" : "problems"}` : "";
  return `it does not match output_schema: ${listed.join("; ")}${tail}`;
}
