import {
  Ajv,
  type CodeOptions,
  type ErrorObject,
  type FuncKeywordDefinition,
  type SchemaValidateFunction,
  type ValidateFunction,
} from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { RE2JS } from "re2js";
import { closestName } from "../closest-name.js";
import { clip } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { stableJson } from "../stable-json.js";

// The one home of ajv: the JSON Schemas a task writes (its command tools' input, its
// `output_schema`), compiled when the task is loaded (or read back from a transcript), and what
// the model sends checked against them.

/** Deepest a schema may nest: far past any tool's input, well short of the compiler's stack. */
const MAX_INPUT_SCHEMA_DEPTH = 64;

/**
 * Why a schema does not compile (Ajv's own words, or a misspelt keyword with what it may have
 * meant), and where in the schema when that is known: the keys down to the faulty one.
 */
export type SchemaCompileError = {
  ok: false;
  message: string;
  path?: readonly (string | number)[];
};

/** A compiled schema, or why it does not compile. */
type CompiledInputSchema = { ok: true; validate: ValidateFunction } | SchemaCompileError;

/** The drafts a schema may name in `$schema`; without one, draft-07. */
const DRAFTS = {
  "draft-07": ["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"],
  "2020-12": [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
  ],
} as const;

type Draft = keyof typeof DRAFTS;

/**
 * What a compiled schema is for. A tool's input is checked up to its first problem (an input of a
 * million wrong items costs one error, and the model is told the first). A final reply is checked
 * in full, so one retry can fix every problem; its size is bounded by the caller.
 */
type SchemaUse = "input" | "output";

const instances = new Map<string, Ajv>();

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
 * One Ajv per draft and use, made on first use. Strict mode, so a misspelt keyword (`propertes`)
 * is an error rather than a schema that checks nothing; `format` is not checked (no format list
 * is loaded); nothing is coerced, defaulted or removed (the value is checked as the model sent
 * it); `$id`s are not registered, so two tasks may use the same one.
 */
function ajv(draft: Draft, use: SchemaUse): Ajv {
  const key = `${draft} ${use}`;
  const found = instances.get(key);
  if (found !== undefined) return found;
  const options = {
    allErrors: use === "output",
    code: { regExp: linearRegExp },
    addUsedSchema: false,
    strictTypes: false,
    strictTuples: false,
    validateFormats: false,
    logger: false,
  } as const;
  const made = draft === "2020-12" ? new Ajv2020(options) : new Ajv(options);
  made.removeKeyword("uniqueItems");
  made.addKeyword(LINEAR_UNIQUE_ITEMS);
  instances.set(key, made);
  return made;
}

/**
 * `uniqueItems` in linear time: each item's canonical JSON goes into a map. Ajv's own compares
 * every pair of items (20,000 objects take 12 s, during which nothing else runs), and the model
 * chooses the items. Equal as JSON Schema says: numbers by value, members in any order.
 */
const hasUniqueItems: SchemaValidateFunction = (isUnique: unknown, items: unknown) => {
  if (isUnique !== true || !Array.isArray(items)) return true;
  const seen = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const key = stableJson(item);
    const first = seen.get(key);
    if (first !== undefined) {
      const message = `must NOT have duplicate items (items ## ${first} and ${index} are identical)`;
      hasUniqueItems.errors = [{ keyword: "uniqueItems", message, params: { i: index, j: first } }];
      return false;
    }
    seen.set(key, index);
  }
  return true;
};

const LINEAR_UNIQUE_ITEMS: FuncKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  validate: hasUniqueItems,
};

/** The draft a schema's `$schema` names, or why it names none agent-run knows. */
function draftOf(schema: Record<string, unknown>): Draft | { message: string } {
  const named = schema.$schema;
  if (named === undefined) return "draft-07";
  const named2020 = DRAFTS["2020-12"].some((uri) => uri === named);
  if (named2020 || DRAFTS["draft-07"].some((uri) => uri === named)) {
    return named2020 ? "2020-12" : "draft-07";
  }
  return {
    message: `$schema ${clip(JSON.stringify(named), 200)} is not a draft agent-run checks; name draft-07 (${DRAFTS["draft-07"][0]}) or 2020-12 (${DRAFTS["2020-12"][0]}), or leave $schema out for draft-07`,
  };
}

/**
 * Compiles a tool's input schema. Ajv caches by the schema object, so compiling the same object
 * again (the tool, after the task file's check) costs nothing.
 */
export function compileInputSchema(schema: Record<string, unknown>): CompiledInputSchema {
  return compileFor(schema, "input");
}

function compileFor(schema: Record<string, unknown>, use: SchemaUse): CompiledInputSchema {
  if (nestsDeeperThan(schema, MAX_INPUT_SCHEMA_DEPTH)) {
    return { ok: false, message: `it nests deeper than ${MAX_INPUT_SCHEMA_DEPTH} levels` };
  }
  const nonJson = nonJsonNumber(schema);
  if (nonJson !== undefined) {
    return { ok: false, message: `it holds ${nonJson}, which JSON cannot carry` };
  }
  const draft = draftOf(schema);
  if (typeof draft !== "string") return { ok: false, message: draft.message };
  try {
    return { ok: true, validate: ajv(draft, use).compile(schema) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^strict mode: unknown keyword: "(.*)"$/s.exec(message)?.[1];
    if (unknown === undefined) return { ok: false, message: clip(message, 500) };
    const hint = keywordHint(unknown, draft, use);
    const path = keywordPath(schema, unknown);
    return {
      ok: false,
      message: `unknown keyword ${clip(JSON.stringify(unknown), 100)}${hint}`,
      ...(path && { path }),
    };
  }
}

/** What a misspelt keyword may have meant, or the `$schema` that has it (`prefixItems`). */
function keywordHint(keyword: string, draft: Draft, use: SchemaUse): string {
  const meant = closestName(keyword, Object.keys(ajv(draft, use).RULES.all));
  if (meant !== undefined) return `; did you mean "${meant}"?`;
  if (draft === "draft-07" && ajv("2020-12", use).RULES.all[keyword] !== undefined) {
    return `; it is a 2020-12 keyword: add $schema: ${DRAFTS["2020-12"][0]}`;
  }
  return "";
}

/** Keywords whose value maps names to schemas: a key there is a name, not a keyword. */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
/** Keywords whose value is data, not a schema: never searched for keywords. */
const DATA_VALUES = new Set(["const", "enum", "default", "examples"]);

/** The keys down to the first place `keyword` stands as a keyword in `schema`, depth first. */
function keywordPath(
  node: unknown,
  keyword: string,
  isNameMap = false,
): (string | number)[] | undefined {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const found = keywordPath(item, keyword);
      if (found !== undefined) return [index, ...found];
    }
    return undefined;
  }
  if (typeof node !== "object" || node === null) return undefined;
  if (!isNameMap && Object.hasOwn(node, keyword)) return [keyword];
  for (const [key, value] of Object.entries(node)) {
    if (!isNameMap && DATA_VALUES.has(key)) continue;
    const found = keywordPath(value, keyword, !isNameMap && SCHEMA_MAPS.has(key));
    if (found !== undefined) return [key, ...found];
  }
  return undefined;
}

/** A compiled `output_schema`: `problemsOf` lists what is wrong with a value (none: it is valid). */
export type CompiledOutputSchema =
  | { ok: true; problemsOf: (value: unknown) => string[] }
  | SchemaCompileError;

/**
 * Compiles a task's `output_schema` (draft-07, or 2020-12 when its `$schema` says so). Every
 * problem of a value is found; each is described as `/path: message`, its path and details
 * clipped (they come from the model's reply).
 */
export function compileOutputSchema(schema: Record<string, unknown>): CompiledOutputSchema {
  const compiled = compileFor(schema, "output");
  if (!compiled.ok) return compiled;
  const { validate } = compiled;
  return {
    ok: true,
    problemsOf: (value) =>
      validate(value) ? [] : (validate.errors ?? []).map(describeOutputProblem),
  };
}

function describeOutputProblem(error: ErrorObject): string {
  const where = error.instancePath === "" ? "(the object)" : clip(error.instancePath, 200);
  return `${where}: ${clip(error.message ?? `fails "${error.keyword}"`, 300)}${detailOf(error)}`;
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
  return `${where} ${message}${detailOf(error)}`;
}

/** The name of a property that is not allowed, or the values that are: ` ("x")`, ` ("a", "b")`. */
function detailOf(error: ErrorObject): string {
  const { params } = error;
  const extra: unknown = params.additionalProperty;
  if (typeof extra === "string") return ` (${clip(JSON.stringify(extra), 200)})`;
  const allowed: unknown = params.allowedValues ?? params.allowedValue;
  if (allowed === undefined || error.keyword === "type") return "";
  const values = Array.isArray(allowed) ? allowed : [allowed];
  return ` (${clip(values.map((value) => JSON.stringify(value)).join(", "), 300)})`;
}
