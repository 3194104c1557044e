import { z } from "zod";
import { closestName } from "../closest-name.js";
import type { TaskFileProblem } from "../errors.js";
import { describeValue } from "./describe-value.js";
import { formatPath, type Locator } from "./yaml-locator.js";

const MISSING = "required field is missing";

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
};

/**
 * Per-parse zod error map: phrases type and enum mismatches as "expected X, got Y; fix".
 * Messages set on the schema itself (durations, positive integers) take precedence.
 */
export const describeIssue: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return MISSING;
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    return `expected ${expected}, got ${describeValue(issue.input)}${typeHint(issue.expected, issue.input)}`;
  }
  if (issue.code === "invalid_value") return unknownValue(issue.input, issue.values.map(String));
  // A discriminated union's tag (`type: tool_us` in a replies file) reads like an enum value.
  if (issue.code === "invalid_union" && issue.discriminator !== undefined) {
    const options =
      "options" in issue && Array.isArray(issue.options) ? issue.options.map(String) : [];
    const tag = valueAt(issue.input, [issue.discriminator]);
    return tag === undefined
      ? `${MISSING}; expected one of ${options.join(", ")}`
      : unknownValue(tag, options);
  }
  // A bad record key: the key schema's own message says what a key must look like.
  if (issue.code === "invalid_key") return issue.issues[0]?.message;
  return undefined;
};

function unknownValue(input: unknown, options: readonly string[]): string {
  const got = typeof input === "string" ? JSON.stringify(input) : describeValue(input);
  const guess = typeof input === "string" ? closestName(input, options) : undefined;
  return `unknown value ${got}${didYouMean(guess)}; expected one of ${options.join(", ")}`;
}

function typeHint(expected: string, input: unknown): string {
  if (expected === "string" && (typeof input === "number" || typeof input === "boolean")) {
    return `; put it in quotes: "${String(input)}"`;
  }
  if (expected === "array" && typeof input === "string") return `; write a list: [${input}]`;
  if (expected === "object" && input !== null && typeof input !== "object") {
    return "; put its fields on indented lines below it";
  }
  return "";
}

function didYouMean(guess: string | undefined): string {
  return guess === undefined ? "" : ` (did you mean "${guess}"?)`;
}

/** Turns the issues of a failed task-file (or replies-file) parse into problems located at the offending YAML. */
export function problemsFromIssues(
  file: string,
  issues: readonly z.core.$ZodIssue[],
  data: unknown,
  locator: Locator,
  schema: z.core.$ZodType,
): TaskFileProblem[] {
  const problems: TaskFileProblem[] = [];
  const typoTargets = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== "unrecognized_keys") continue;
    for (const key of issue.keys) {
      const unknown = unknownFieldProblem(file, issue.path, key, { data, locator, schema });
      if (unknown.target !== undefined) typoTargets.add(unknown.target);
      problems.push(unknown.problem);
    }
  }
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") continue;
    const path = formatPath(issue.path);
    const isMissing = issue.code === "invalid_type" && valueAt(data, issue.path) === undefined;
    // `workspce:` already says "did you mean workspace?"; "workspace is missing" would be noise.
    if (isMissing && typoTargets.has(path)) continue;
    const position = isMissing
      ? locator.value(issue.path.slice(0, -1))
      : issue.code === "invalid_key"
        ? locator.key(issue.path)
        : locator.value(issue.path);
    problems.push({ file, ...position, path, message: issue.message });
  }
  return problems;
}

/** What a problem is looked up in: the parsed data, its YAML nodes and the schema it failed. */
type Source = { data: unknown; locator: Locator; schema: z.core.$ZodType };

function unknownFieldProblem(
  file: string,
  parentPath: readonly PropertyKey[],
  key: string,
  { data, locator, schema }: Source,
): { problem: TaskFileProblem; target: string | undefined } {
  const allowed = fieldNamesAt(schema, data, parentPath);
  const sibling = closestName(key, allowed);
  const guess = sibling ?? nestedHome(schema, data, parentPath, allowed, key);
  const expected = allowed.length > 0 ? `; expected one of ${allowed.join(", ")}` : "";
  const path = [...parentPath, key];
  return {
    problem: {
      file,
      ...locator.key(path),
      path: formatPath(path),
      message: `unknown field ${JSON.stringify(key)}${didYouMean(guess)}${expected}`,
    },
    target: sibling === undefined ? undefined : formatPath([...parentPath, sibling]),
  };
}

/** `max_steps` written at the top level belongs in `limits`: suggest `limits.max_steps`. */
function nestedHome(
  schema: z.core.$ZodType,
  data: unknown,
  parentPath: readonly PropertyKey[],
  siblings: readonly string[],
  key: string,
): string | undefined {
  for (const sibling of siblings) {
    const inner = closestName(key, fieldNamesAt(schema, data, [...parentPath, sibling]));
    if (inner !== undefined) return formatPath([sibling, inner]);
  }
  return undefined;
}

/**
 * The field names of the object schema at `path` (through `.optional()`, list items, a mapping's
 * entries and, by the data's tag, a discriminated union's option), or none.
 */
function fieldNamesAt(
  schema: z.core.$ZodType,
  data: unknown,
  path: readonly PropertyKey[],
): string[] {
  let current: z.core.$ZodType | undefined = schema;
  let value = data;
  for (const segment of path) {
    current = childSchema(current, value, segment);
    value = valueAt(value, [segment]);
  }
  const object = asObject(current, value);
  return object === undefined ? [] : Object.keys(object.shape);
}

function childSchema(
  schema: z.core.$ZodType | undefined,
  value: unknown,
  segment: PropertyKey,
): z.core.$ZodType | undefined {
  const inner = schema instanceof z.ZodOptional ? schema.unwrap() : schema;
  if (typeof segment === "number") return inner instanceof z.ZodArray ? inner.element : undefined;
  // A mapping of names to entries (`mcp_servers`): every key leads to the entry's schema.
  if (inner instanceof z.ZodRecord) return inner.valueType;
  const object = asObject(inner, value);
  return object === undefined || typeof segment !== "string" ? undefined : object.shape[segment];
}

function asObject(schema: z.core.$ZodType | undefined, value: unknown): z.ZodObject | undefined {
  if (schema instanceof z.ZodOptional) return asObject(schema.unwrap(), value);
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const key = schema.def.discriminator;
    const tag = valueAt(value, [key]);
    const option = schema.options.find((candidate) => {
      const tagSchema = asObject(candidate, undefined)?.shape[key];
      return tagSchema !== undefined && z.safeParse(tagSchema, tag).success;
    });
    return asObject(option, value);
  }
  return schema instanceof z.ZodObject ? schema : undefined;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = Reflect.get(current, segment);
  }
  return current;
}
