import { posix } from "node:path";
import { z } from "zod";
import { FLAG_GROUP_PATTERN, patternProblem } from "../checks/check-pattern.js";
import {
  JSON_POINTER_PATTERN,
  JSON_POINTER_RULE,
  jsonPointerHint,
} from "../checks/json-pointer.js";
import { CHECK_KINDS } from "../checks/types.js";
import { describeValue } from "./describe-value.js";
import { duration, nonBlankString, nonNegativeInt } from "./schema-fields.js";

/** A `run` check's own limit when it sets none: a whole test suite fits, a hang does not last. */
export const DEFAULT_CHECK_TIMEOUT_MS = 5 * 60_000;

const KIND_LIST = CHECK_KINDS.join(", ");

/** Absolute, POSIX or Windows: exactly what `posix.isAbsolute` or `win32.isAbsolute` accepts. */
const ABSOLUTE_PATH = /^(?:[\\/]|[A-Za-z]:[\\/])/;

/** A `..` segment, between either separator. */
const PARENT_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

/** The same rule for JSON Schema, which has only a pattern: neither absolute nor with a `..`. */
const WORKSPACE_PATH_PATTERN = `^(?!${ABSOLUTE_PATH.source.slice(1)})(?![\\s\\S]*${PARENT_SEGMENT.source})`;

/**
 * Absolute paths never name a workspace file, and a `..` segment either leaves the workspace or
 * takes a detour (a glob with one never matches a changed file's path), so both are refused at
 * load time, by a rule a JSON Schema pattern can state.
 */
function placeProblem(value: string, what: "path" | "glob"): string | undefined {
  const example = what === "path" ? "src/app.js" : "src/**";
  if (ABSOLUTE_PATH.test(value)) {
    return `expected a ${what} relative to the workspace root (like "${example}"), got ${describeValue(value)}`;
  }
  if (!PARENT_SEGMENT.test(value)) return undefined;
  const normalized = posix.normalize(value.replaceAll("\\", "/"));
  if (normalized === ".." || normalized.startsWith("../")) {
    return `${what} ${describeValue(value)} leads outside the workspace; write it relative to the workspace root (like "${example}")`;
  }
  return `${what} ${describeValue(value)} has a ".." segment; write it without one, relative to the workspace root (like "${example}")`;
}

function workspaceString(what: "path" | "glob") {
  return z
    .string()
    .min(1, `must not be empty; write a ${what} relative to the workspace root`)
    .check((ctx) => {
      const message = placeProblem(ctx.value, what);
      if (message !== undefined) ctx.issues.push({ code: "custom", input: ctx.value, message });
    })
    .meta({ pattern: WORKSPACE_PATH_PATTERN });
}

const workspacePath = (description: string) => workspaceString("path").describe(description);

const pattern = (description: string) =>
  z
    .string()
    .min(1, "must not be empty; write a regular expression")
    .check((ctx) => {
      const problem = patternProblem(ctx.value);
      if (problem === undefined) return;
      const message = `invalid regular expression: ${problem}`;
      ctx.issues.push({ code: "custom", input: ctx.value, message });
    })
    // A leading flag group is not JavaScript syntax, so "format: regex" holds for the rest only;
    // the schema leaves a pattern with a flag group to the runner.
    .meta({ anyOf: [{ format: "regex" }, { pattern: FLAG_GROUP_PATTERN }] })
    .describe(description);

const globList = (description: string) =>
  z
    .array(workspaceString("glob"))
    .min(1, "expected at least one glob; remove the field to drop this expectation")
    .optional()
    .describe(description);

/** "expected a mapping such as …" beats the generic hint for the nested check objects. */
const mappingError = (example: string) => (issue: { code?: string; input?: unknown }) =>
  issue.code === "invalid_type"
    ? `expected a mapping such as ${example}, got ${describeValue(issue.input)}`
    : undefined;

const ChangedFilesSchema = z
  .object(
    {
      only: globList(
        "Globs (picomatch, matched against workspace-relative paths, dotfiles included) that every changed, added or deleted file must match.",
      ),
      must: globList("Globs that must each match at least one changed file."),
      max: nonNegativeInt(
        "Most files that may change (added, modified and deleted count alike); 0 asserts that nothing changed.",
      ),
    },
    { error: mappingError('{ only: ["src/**"], max: 3 }') },
  )
  .strict()
  .check((ctx) => {
    const { only, must, max } = ctx.value;
    if (only === undefined && must === undefined && max === undefined) {
      const message = "expected at least one of only, must, max";
      ctx.issues.push({ code: "custom", input: ctx.value, message });
    }
  })
  .meta({ minProperties: 1 })
  .optional()
  .describe(
    'Passes when the workspace\'s changes meet every expectation given: only, must, max. Example: { only: ["src/**"], must: [src/math.js], max: 3 }.',
  );

const jsonPointer = z
  .string({ error: (issue) => `expected ${JSON_POINTER_RULE}, got ${describeValue(issue.input)}` })
  .check((ctx) => {
    const hint = jsonPointerHint(ctx.value);
    if (hint === undefined) return;
    const message = `expected ${JSON_POINTER_RULE}, got ${describeValue(ctx.value)}; ${hint}`;
    ctx.issues.push({ code: "custom", input: ctx.value, message });
  })
  .meta({ pattern: JSON_POINTER_PATTERN })
  .describe(
    'Where in the structured output to look: a JSON Pointer (RFC 6901), "" for the whole object, "/label" for a member, "/items/0" for an array\'s first item.',
  );

/** A value JSON can carry: YAML's `.inf` and `.nan` cannot be in the structured output. */
const JSON_VALUE = z.json();

const OutputEqualsSchema = z
  .object(
    {
      pointer: jsonPointer,
      value: z
        .unknown()
        .check((ctx) => {
          if (ctx.value !== undefined && JSON_VALUE.safeParse(ctx.value).success) return;
          const message =
            ctx.value === undefined
              ? "required field is missing; write the value the output must hold there"
              : `expected a JSON value (text, a number, true, false, null, or a list or mapping of them), got ${describeValue(ctx.value)}`;
          ctx.issues.push({ code: "custom", input: ctx.value, message });
        })
        .describe(
          "The JSON value that must be there: a string, number, boolean, null, list or mapping, compared as JSON (a mapping's keys in any order).",
        ),
    },
    { error: mappingError("{ pointer: /label, value: bug }") },
  )
  .strict()
  .optional()
  .describe(
    "Passes when the run's structured output (output_schema) holds value at pointer. Example: { pointer: /label, value: bug }.",
  );

const CheckItemSchema = z
  .object(
    {
      name: nonBlankString("must not be empty; remove it to use the default name")
        .optional()
        .describe(
          'Name shown in summaries and reports. Default: a short description such as "run: npm test".',
        ),
      run: nonBlankString('must not be empty; write the command to run, e.g. "npm test"')
        .optional()
        .describe(
          "Shell command run with bash in the final workspace; passes when it exits 0. Its output is kept (capped).",
        ),
      timeout: duration(
        `Limit for a run check's command ("90s", "2m", … or a number of seconds), separate from the task's limits; on expiry its process tree is killed and the check fails. Default: ${DEFAULT_CHECK_TIMEOUT_MS / 60_000}m.`,
      ),
      file_exists: workspacePath(
        "Workspace-relative path of a file that must exist after the run.",
      ).optional(),
      file_absent: workspacePath(
        "Workspace-relative path where nothing may exist after the run.",
      ).optional(),
      file_contains: z
        .object(
          {
            path: workspacePath("Workspace-relative path of the file."),
            text: z
              .string()
              .min(1, "must not be empty; write the text the file must contain")
              .describe("Text the file must contain (plain substring, case-sensitive)."),
          },
          { error: mappingError('{ path: README.md, text: "Goodbye" }') },
        )
        .strict()
        .optional()
        .describe("Passes when the file exists and contains the text."),
      file_matches: z
        .object(
          {
            path: workspacePath("Workspace-relative path of the file."),
            regex: pattern(
              "JavaScript regular expression searched for in the file's text; a leading flag group sets flags: (?i) ignores case, (?m) makes ^ and $ match at each line, (?s) lets . match line breaks, combined as (?ims).",
            ),
          },
          { error: mappingError('{ path: src/math.js, regex: "return a \\\\+ b" }') },
        )
        .strict()
        .optional()
        .describe("Passes when the file exists and its text matches the regex."),
      changed_files: ChangedFilesSchema,
      final_text_matches: pattern(
        "JavaScript regular expression searched for in the agent's last message; a leading flag group sets flags: (?i) ignores case, (?m) makes ^ and $ match at each line, (?s) lets . match line breaks, combined as (?ims).",
      ).optional(),
      plan_complete: z
        .literal(true, {
          error: (issue) =>
            `expected true (the check passes when every item of the agent's plan is completed), got ${describeValue(issue.input)}; remove the check to drop it`,
        })
        .optional()
        .describe(
          "true: passes when the agent's plan (the todo_write tool, which tools must list) has items and every one is completed.",
        ),
      output_equals: OutputEqualsSchema,
    },
    {
      error: (issue) =>
        issue.code === "invalid_type"
          ? `expected a mapping with one check, such as "- run: npm test", got ${describeValue(issue.input)}`
          : undefined,
    },
  )
  .strict()
  .check((ctx) => {
    const kinds = CHECK_KINDS.filter((kind) => ctx.value[kind] !== undefined);
    // An unknown key (`file_exist:`) already got a "did you mean" message; "got none" would be noise.
    const hasUnknownKey = ctx.issues.some((issue) => issue.code === "unrecognized_keys");
    if (kinds.length === 1 || (kinds.length === 0 && hasUnknownKey)) return;
    const got =
      kinds.length === 0 ? "got none" : `got ${listWords(kinds)}; split them into separate items`;
    const message = `expected exactly one of ${KIND_LIST}; ${got}`;
    ctx.issues.push({ code: "custom", input: ctx.value, message });
  })
  .check((ctx) => {
    const { timeout, run } = ctx.value;
    if (timeout === undefined || run !== undefined) return;
    const message = "only a run check has a timeout; remove it, or add it to a run item";
    ctx.issues.push({ code: "custom", input: timeout, path: ["timeout"], message });
  })
  .meta({
    description: `One check: exactly one of ${KIND_LIST}, plus an optional name (and timeout, for run).`,
    // `properties` repeats the kind so that Ajv's strictRequired sees it defined in the branch.
    oneOf: CHECK_KINDS.map((kind) => ({ properties: { [kind]: true }, required: [kind] })),
    dependencies: { timeout: ["run"] },
  });

/** `checks:` in a task file: graders evaluated in the final workspace after the agent stops. */
export const ChecksSchema = z
  .array(CheckItemSchema)
  .optional()
  .describe(
    `Checks (graders) evaluated in the final workspace after the agent stops, also when a limit stopped it. The task passes when the run completed and every check passed. Each item has exactly one of ${KIND_LIST}, plus an optional name. Default: none.`,
  );

/** One item of `checks:` as written. */
export type CheckItem = z.infer<typeof CheckItemSchema>;

/** `["a", "b", "c"]` → `a, b and c`. */
function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1) ?? ""}`;
}
