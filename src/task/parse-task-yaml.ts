import { isMap, LineCounter, parseDocument, type YAMLError } from "yaml";
import type { TaskFileProblem } from "../errors.js";
import { describeValue } from "./describe-value.js";
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
    return { ok: false, problems: syntaxProblems(file, text, doc.errors, lineCounter) };
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    // Unresolved aliases and alias bombs surface only here.
    const message = error instanceof Error ? error.message : String(error);
    return fail({ file, ...FILE_START, path: "", message: `invalid YAML: ${lowerFirst(message)}` });
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
  errors: readonly YAMLError[],
  lineCounter: LineCounter,
): TaskFileProblem[] {
  const byLine = new Map<number, TaskFileProblem>();
  for (const error of errors) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    if (byLine.has(line)) continue;
    const message = `invalid YAML: ${describeSyntaxError(error, text)}`;
    byLine.set(line, { file, line, column: col, path: "", message });
  }
  return [...byLine.values()];
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
      return `${message}; check the indentation (fields of one mapping start in the same column)`;
    case "MISSING_CHAR":
      return `${message}; check that every quoted value and every [ or { is closed`;
    case "BAD_SCALAR_START":
      return `${message}; put the value in quotes`;
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
