import { ConfigError } from "../errors.js";
import { parseDuration } from "../task/schema-fields.js";

// The value parsers every command's flags go through: yargs hands over strings, these check them
// and say which flag is wrong and how to fix it (`ConfigError`, exit 2).

/** A non-blank string flag value, else undefined. */
export function stringFlag(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The value, unless it is missing or blank (an empty env var counts as unset). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A repeatable string flag's values (`--redact A --redact B,C` → A, B, C), blanks dropped. */
export function listFlag(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values
    .flatMap((item) => String(item).split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** A repeatable flag whose values may hold commas (`--bash-allow 'npm *'`), blanks dropped. */
export function patternListFlag(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map(String).filter((item) => item.trim() !== "");
}

/** A positive integer flag, optionally at most `max`. */
export function positiveIntFlag(flag: string, value: unknown, max?: number): number | undefined {
  return integerFlag(flag, value, max, POSITIVE_INTEGER);
}

/** A whole number flag, 0 or more, at most `max`; 0 when not given. */
export function countFlag(flag: string, value: unknown, max: number): number {
  return integerFlag(flag, value, max, WHOLE_NUMBER) ?? 0;
}

/** Which integers a flag takes, and how its message names them. */
type IntegerKind = { expected: string; isValid: (text: string, number: number) => boolean };

const POSITIVE_INTEGER: IntegerKind = {
  expected: "a positive integer",
  isValid: (_text, number) => number > 0,
};

const WHOLE_NUMBER: IntegerKind = {
  expected: "a whole number, 0 or more",
  isValid: (text) => /^\d+$/.test(text.trim()),
};

function integerFlag(
  flag: string,
  value: unknown,
  max: number | undefined,
  kind: IntegerKind,
): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const number = Number(text);
  if (!Number.isSafeInteger(number) || !kind.isValid(text, number)) {
    throw new ConfigError(`${flag}: expected ${kind.expected}, got ${JSON.stringify(text)}`);
  }
  if (max !== undefined && number > max) {
    throw new ConfigError(`${flag}: at most ${max.toLocaleString("en-US")}, got ${number}`);
  }
  return number;
}

/** `--prices`, else `AGENT_RUN_PRICES`: the JSON file of model prices to add or override. */
export function pricesFileFlag(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  return stringFlag(raw.prices) ?? nonEmpty(env.AGENT_RUN_PRICES);
}

/** A positive amount of US dollars (`0.5`, `$2`). */
export function usdFlag(flag: string, value: unknown): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const amount = Number(text.replace(/^\$/, ""));
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new ConfigError(
      `${flag}: expected a positive amount of US dollars such as 0.5, got ${JSON.stringify(text)}`,
    );
  }
  return amount;
}

/** Durations past this are refused, as in task files: a week is longer than any CI job runs. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/** A duration flag (`90s`, `10m`, or seconds), at most 7 days. */
export function durationFlag(flag: string, value: unknown): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const ms = parseDuration(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === null) {
    throw new ConfigError(
      `${flag}: expected a duration such as 90s, 10m or 1h, got ${JSON.stringify(text)}`,
    );
  }
  if (ms > MAX_DURATION_MS) {
    throw new ConfigError(
      `${flag}: at most ${MAX_DURATION_MS.toLocaleString("en-US")} ms (7 days), got ${ms}`,
    );
  }
  return ms;
}
