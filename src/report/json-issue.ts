import type { z } from "zod";
import { ConfigError, messageOf } from "../errors.js";
import { showControls } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";

const MAX_ISSUES = 10;

/** Deepest a `summary.json` or `report.json` nests: its structured output nests 64 levels at most. */
const MAX_DEPTH = 128;

/**
 * One line per zod issue, naming the file and the field (`runs/a/summary.json: usage.input_tokens:
 * expected number, received string`), so a hand-edited or truncated file is easy to fix. Parse with
 * `reportInput: true`, which tells a missing field from a wrong one.
 */
export function describeJsonIssues(file: string, error: z.ZodError): string {
  const lines = error.issues.slice(0, MAX_ISSUES).map((issue) => {
    const field = issue.path.length === 0 ? "(the whole file)" : issue.path.join(".");
    const message =
      issue.code === "invalid_type" && issue.input === undefined
        ? "required field is missing"
        : issue.message;
    return `${file}: ${field}: ${message}`;
  });
  const more = error.issues.length - MAX_ISSUES;
  return more > 0 ? [...lines, `${file}: … and ${more} more`].join("\n") : lines.join("\n");
}

/** Why a parsed JSON document's `schema_version` cannot be read by us, or undefined when it can. */
export function schemaVersionProblem(
  json: unknown,
  newest: number,
  file: string,
): string | undefined {
  const version =
    typeof json === "object" && json !== null && !Array.isArray(json)
      ? Reflect.get(json, "schema_version")
      : undefined;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    return `${file}: schema_version: expected a positive integer, got ${JSON.stringify(version) ?? "nothing"}`;
  }
  if (version > newest) {
    return `${file}: schema_version ${version} is newer than this agent-run understands (${newest}); upgrade agent-run`;
  }
  return undefined;
}

/**
 * Parses one of our versioned JSON files (`summary.json`, `report.json`): valid JSON, a
 * `schema_version` we can read, then `schema`. Every problem is a `ConfigError` naming `file`.
 */
export function parseVersionedJson<S extends z.ZodType>(
  text: string,
  file: string,
  newest: number,
  schema: S,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // The parser quotes the text it failed on: a hostile file's bytes must not reach a terminal.
    throw new ConfigError(`${file}: not valid JSON: ${showControls(messageOf(error))}`, error);
  }
  if (nestsDeeperThan(json, MAX_DEPTH)) {
    throw new ConfigError(
      `${file}: nests deeper than ${MAX_DEPTH} levels, which no file agent-run writes does`,
    );
  }
  const versionProblem = schemaVersionProblem(json, newest, file);
  if (versionProblem !== undefined) throw new ConfigError(versionProblem);
  const parsed = schema.safeParse(json, { reportInput: true });
  if (!parsed.success) throw new ConfigError(describeJsonIssues(file, parsed.error));
  return parsed.data;
}
