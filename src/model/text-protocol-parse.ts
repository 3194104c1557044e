import { closestName } from "../closest-name.js";
import { clip } from "../format.js";

/** The start of a call line, after trimming: `tool: NAME({json})`. */
const CALL_PREFIX = "tool:";
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}/;

/** How a text-protocol reply reads: a final answer, one call, or a call that cannot run. */
export type TextReply =
  | { kind: "final" }
  | {
      kind: "call";
      /** The reply up to the end of the call (what goes into the history). */
      kept: string;
      name: string;
      input: Record<string, unknown>;
      /** `tool:` lines after the call: not run, answered with "one call per reply". */
      laterCalls: number;
    }
  | { kind: "malformed"; kept: string; error: string };

/** Reminds the model of the format, at the end of every malformed-call message. */
const FORMAT_HINT =
  'reply with exactly one line in the format tool: TOOL_NAME({JSON_ARGS}), compact single-line JSON with double quotes, e.g. tool: bash({"command":"ls"})';

/**
 * Reads a reply of the text tool protocol. The first line whose trimmed form starts with `tool:`
 * is the call: `tool: NAME(` then a JSON object (it may span lines: its end is found by a
 * string-aware brace count, then it is parsed strictly, never repaired), then `)` and nothing
 * else on that line. Everything after the call is dropped (an invented `tool_result(...)`);
 * later `tool:` lines are counted. `cutOff`: the reply stopped at the output token limit.
 */
export function parseTextReply(
  text: string,
  toolNames: readonly string[],
  cutOff: boolean,
): TextReply {
  const start = firstCallLine(text, 0);
  if (start === undefined) return { kind: "final" };
  const lineEnd = endOfLine(text, start);
  const bad = (error: string, end = lineEnd): TextReply => ({
    kind: "malformed",
    kept: text.slice(0, end),
    error: `${error}; ${FORMAT_HINT}`,
  });
  let at = skipBlanks(text, text.indexOf(CALL_PREFIX, start) + CALL_PREFIX.length);
  const name = TOOL_NAME.exec(text.slice(at, at + 65))?.[0];
  if (name === undefined) return bad("the tool: line has no tool name");
  at += name.length;
  if (text[at] !== "(" || text[skipBlanks(text, at + 1)] !== "{")
    return bad(`the call to ${name} has no JSON object in parentheses after the name`);
  const jsonStart = skipBlanks(text, at + 1);
  const jsonEnd = endOfObject(text, jsonStart);
  if (jsonEnd === undefined) {
    return cutOff
      ? bad(
          `your reply was cut off at the output token limit in the middle of the call to ${name}, so it was not run; send it again, smaller (split large files into several edits)`,
          text.length,
        )
      : bad(`the JSON object of the call to ${name} is never closed`, text.length);
  }
  const callEnd = endOfLine(text, jsonEnd);
  const after = text.slice(jsonEnd, callEnd).trim();
  if (after !== ")")
    return bad(`the call to ${name} must end with ) right after the JSON object`, callEnd);
  const input = parseObject(text.slice(jsonStart, jsonEnd));
  if (typeof input === "string")
    return bad(`the arguments of the call to ${name} are not valid JSON (${input})`, callEnd);
  if (!toolNames.includes(name)) return bad(unknownTool(name, toolNames), callEnd);
  return {
    kind: "call",
    kept: text.slice(0, callEnd),
    name,
    input,
    laterCalls: countCallLines(text, callEnd),
  };
}

function unknownTool(name: string, toolNames: readonly string[]): string {
  const guess = closestName(name, toolNames);
  const known = toolNames.join(", ") || "none";
  return `unknown tool ${clip(name)}${guess === undefined ? "" : `; did you mean ${guess}?`} The tools you have are: ${known}`;
}

/** Strict `JSON.parse` of an object; the parser's message when it is not valid JSON. */
function parseObject(json: string): Record<string, unknown> | string {
  try {
    return JSON.parse(json) as Record<string, unknown>;
  } catch (error) {
    return clip(error instanceof Error ? error.message : String(error), 200);
  }
}

/** The offset of the first line from `from` whose trimmed form starts with `tool:`. */
function firstCallLine(text: string, from: number): number | undefined {
  let lineStart = from;
  while (lineStart <= text.length) {
    const end = endOfLine(text, lineStart);
    if (text.slice(lineStart, end).trimStart().startsWith(CALL_PREFIX)) return lineStart;
    lineStart = end + 1;
  }
  return undefined;
}

function countCallLines(text: string, from: number): number {
  let count = 0;
  let at = firstCallLine(text, from);
  while (at !== undefined) {
    count += 1;
    at = firstCallLine(text, endOfLine(text, at) + 1);
  }
  return count;
}

/** The offset of the `\n` ending the line at `at` (or the text's end). */
function endOfLine(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

function skipBlanks(text: string, at: number): number {
  let i = at;
  while (text[i] === " " || text[i] === "\t") i += 1;
  return i;
}

/**
 * The offset just past the `}` closing the object that opens at `start`, counting braces outside
 * JSON strings (with their `\` escapes); undefined when the text ends first.
 */
export function endOfObject(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}
