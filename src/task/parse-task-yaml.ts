import { type Document, isMap, LineCounter, parseDocument, type YAMLError } from "yaml";
import type { TaskFileProblem } from "../errors.js";
import { describeValue } from "./describe-value.js";
import { aliasErrorOffset, syntaxErrorOffset } from "./yaml-error-place.js";
import { createLocator, FILE_START, type Locator } from "./yaml-locator.js";

/** A task file's YAML as plain data plus a locator for its nodes, or the problems that stop that. */
type ParsedTaskYaml =
  | { ok: true; data: unknown; locator: Locator }
  | { ok: false; problems: TaskFileProblem[] };

/** Parses the text of one task file; the result is always a mapping when `ok`. */
export function parseTaskYaml(file: string, text: string): ParsedTaskYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    logLevel: "error",
  });
  const locator = createLocator(doc, lineCounter);
  if (doc.errors.length > 0) {
    return { ok: false, problems: syntaxProblems(file, text, doc, lineCounter) };
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // Unresolved aliases and alias bombs surface only here, without a place: find the alias.
    const message = error instanceof Error ? error.message : String(error);
    const isUnresolved = /^unresolved alias/i.test(message);
    const offset = aliasErrorOffset(doc, isUnresolved);
    const place = offset === undefined ? FILE_START : positionAt(lineCounter, offset);
    return fail({ file, ...place, path: "", message: describeAliasError(message, isUnresolved) });
  }
  if (!isMap(doc.contents)) {
    const got = doc.contents === null ? "an empty file" : describeValue(data);
    return fail({
      file,
      ...locator.value([]),
      path: "",
      message: `a task file must be a mapping with at least "prompt:" and "workspace:" fields, got ${got}`,
    });
  }
  return { ok: true, data, locator };
}

function fail(problem: TaskFileProblem): ParsedTaskYaml {
  return { ok: false, problems: [problem] };
}

/** One problem per line: the yaml parser often reports a second, derived error at the same spot. */
function syntaxProblems(
  file: string,
  text: string,
  doc: Document,
  lineCounter: LineCounter,
): TaskFileProblem[] {
  const byLine = new Map<number, TaskFileProblem>();
  // The specific error first: a block list in a flow list also reports derived key errors.
  const errors = [...doc.errors].sort(
    (a, b) => Number(b.code === "BLOCK_IN_FLOW") - Number(a.code === "BLOCK_IN_FLOW"),
  );
  for (const error of errors) {
    const { line, column } = positionAt(lineCounter, syntaxErrorOffset(doc, error));
    if (byLine.has(line)) continue;
    const message = `invalid YAML: ${describeSyntaxError(error, text)}`;
    byLine.set(line, { file, line, column, path: "", message });
  }
  return [...byLine.values()];
}

function positionAt(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function describeAliasError(message: string, isUnresolved: boolean): string {
  if (isUnresolved) {
    const name = /: (\S+)$/.exec(message)?.[1] ?? "";
    return `invalid YAML: the alias *${name} has no anchor &${name} before it; define the anchor above the alias, or write the value out`;
  }
  return `invalid YAML: ${lowerFirst(message)}; write the values out instead of nesting aliases`;
}

function describeSyntaxError(error: YAMLError, text: string): string {
  const message = lowerFirst(error.message);
  switch (error.code) {
    case "MULTIPLE_DOCS":
      return 'found more than one YAML document; a task file holds one task, so remove the "---" line or split the file';
    case "DUPLICATE_KEY":
      return `field ${JSON.stringify(keyAt(text, error.pos[0]))} appears twice; keep one`;
    case "TAB_AS_INDENT":
      return `${message}; indent with spaces`;
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY":
      return `${message}; if a value contains ": ", put it in quotes or use a block ("prompt: |" with the text indented below)`;
    case "BAD_INDENT":
      return /^flow (sequence|map)/i.test(error.message)
        ? `this ${/^flow sequence/i.test(error.message) ? "[ is never closed; add the closing ]" : "{ is never closed; add the closing }"} (or indent its continuation lines)`
        : `${message}; check the indentation (fields of one mapping start in the same column)`;
    case "MISSING_CHAR":
      return /^missing closing/i.test(error.message)
        ? `this quoted value is never closed; add the closing ${error.message.includes("'") ? "'" : '"'}`
        : `${message}; check that every quoted value and every [ or { is closed`;
    case "BAD_SCALAR_START":
      return `${message}; put the value in quotes`;
    case "BLOCK_IN_FLOW":
      return `${message}; inside [ ] or { } separate items with commas ("[bash, read_file]")`;
    case "BAD_DQ_ESCAPE":
      return `${message}; write \\\\ for a backslash, or use single quotes`;
    case "MULTIPLE_ANCHORS":
      return `${message}; keep one`;
    case "ALIAS_PROPS":
      return `${message}; remove the anchor or tag in front of the alias`;
    case "UNEXPECTED_TOKEN":
      return `${message}; remove it, or check the brackets and quotes above`;
    case "KEY_OVER_1024_CHARS":
      return `${message}; check for a missing line break or ": " on this line`;
    default:
      return message;
  }
}

/** The key text starting at `offset`, without quotes. */
function keyAt(text: string, offset: number): string {
  const raw = /^[^:\n]*/.exec(text.slice(offset))?.[0] ?? "";
  return raw.trim().replace(/^["']|["']$/g, "");
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
