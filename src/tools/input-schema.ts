import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from "ajv";
import { RE2JS } from "re2js";
import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";

// The one home of ajv: the JSON Schemas a task writes for its command tools' input, compiled when
// the task is loaded (or read back from a transcript), and the model's input checked against them.

/** Deepest a schema may nest: far past any tool's input, well short of the compiler's stack. */
const MAX_INPUT_SCHEMA_DEPTH = 64;

/** A compiled schema, or why it does not compile (Ajv's own words). */
type CompiledInputSchema =
  | { ok: true; validate: ValidateFunction }
  | { ok: false; message: string };

let instance: Ajv | undefined;

/**
 * The regular expressions of `pattern` and `patternProperties`, in RE2's engine (re2js): a match
 * takes time linear in the input, where JavaScript's backtracks (`^(a+)+$` on 40 `a`s and a `!`
 * takes minutes, blocking the whole process, its timeouts and signals included), and the model
 * chooses the input. RE2 has no lookaround or backreferences: a pattern with them does not compile.
 */
const linearRegExp: NonNullable<CodeOptions["regExp"]> = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    return { test: (text: string) => compiled.test(text) };
  },
  { code: "re2js" },
);

/**
 * One Ajv for every schema, made on first use. Draft-07 in strict mode, so a misspelt keyword
 * (`propertes`) is an error rather than a schema that checks nothing; `format` is not checked
 * (no format list is loaded); nothing is coerced, defaulted or removed (the input reaches the
 * command as the model sent it); `$id`s are not registered, so two tasks may use the same one.
 * Validation stops at the first problem: an input of a million wrong items costs one error, not a
 * million (the model is told the first).
 */
function ajv(): Ajv {
  instance ??= new Ajv({
    allErrors: false,
    code: { regExp: linearRegExp },
    addUsedSchema: false,
    strictTypes: false,
    strictTuples: false,
    validateFormats: false,
    logger: false,
  });
  return instance;
}

/**
 * Compiles a tool's input schema. Ajv caches by the schema object, so compiling the same object
 * again (the tool, after the task file's check) costs nothing.
 */
export function compileInputSchema(schema: Record<string, unknown>): CompiledInputSchema {
  if (nestsDeeperThan(schema, MAX_INPUT_SCHEMA_DEPTH)) {
    return { ok: false, message: `it nests deeper than ${MAX_INPUT_SCHEMA_DEPTH} levels` };
  }
  const nonJson = nonJsonNumber(schema);
  if (nonJson !== undefined) {
    return { ok: false, message: `it holds ${nonJson}, which JSON cannot carry` };
  }
  try {
    return { ok: true, validate: ajv().compile(schema) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: clip(message, 500) };
  }
}

/** `.inf` and `.nan` in YAML: JSON has no such numbers, so the API would get `null` instead. */
function nonJsonNumber(schema: Record<string, unknown>): string | undefined {
  let found: string | undefined;
  JSON.stringify(schema, (_key, value: unknown) => {
    if (typeof value === "number" && !Number.isFinite(value)) found ??= String(value);
    return value;
  });
  return found;
}

/** Most schema problems one error result lists. */
const MAX_LISTED_PROBLEMS = 5;

/**
 * What the model is told when its input does not fit the schema: `lookup: input/id must be
 * string; …`. Paths and property names come from the input, so each is clipped, and only the
 * first problems are listed.
 */
export function describeInputProblems(toolName: string, errors: readonly ErrorObject[]): string {
  const problems = errors.slice(0, MAX_LISTED_PROBLEMS).map(describeProblem);
  const more = errors.length - MAX_LISTED_PROBLEMS;
  if (more > 0) problems.push(`and ${more} more problems`);
  return `${toolName}: ${problems.join("; ")}; re-send the call with input that fits the tool's input_schema.`;
}

function describeProblem(error: ErrorObject): string {
  const where = `input${clip(error.instancePath, 200)}`;
  const message = clip(error.message ?? `fails "${error.keyword}"`, 300);
  const extra: unknown = error.params.additionalProperty;
  const named = typeof extra === "string" ? ` (${clip(JSON.stringify(extra), 200)})` : "";
  return `${where} ${message}${named}`;
}
