/** Replaces secret values in text that agent-run writes or prints. */
export type Redactor = (text: string) => string;

export const REDACTED = "[REDACTED]";

/** Names of variables whose values are secrets: the API key, and names like `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`. */
const SECRET_NAME =
  /(^ANTHROPIC_API_KEY$|^ANTHROPIC_AUTH_TOKEN$|_KEY$|_TOKEN$|_SECRET$|PASSWORD|_CREDENTIALS?$|^AWS_SECRET_ACCESS_KEY$)/i;

/** Values shorter than this are not treated as secrets (they would blank out ordinary text). */
const MIN_SECRET_LENGTH = 6;

/**
 * The secret values of an environment: every variable named like a secret, plus the variables
 * named in `extraNames` (`--redact`, `AGENT_RUN_REDACT`).
 */
export function secretValues(
  env: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[],
): string[] {
  const names = new Set(extraNames.map((name) => name.trim()).filter((name) => name !== ""));
  return Object.entries(env).flatMap(([name, value]) =>
    value !== undefined &&
    value.length >= MIN_SECRET_LENGTH &&
    (SECRET_NAME.test(name) || names.has(name))
      ? [value]
      : [],
  );
}

/**
 * A redactor for these values: each (also in its JSON-escaped form, for JSONL and JSON files) is
 * replaced with `[REDACTED]`, longest first so one secret inside another is still hidden.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = [
    ...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)])),
  ]
    .filter((form) => form.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  return (text) => {
    let result = text;
    for (const form of forms) if (result.includes(form)) result = result.split(form).join(REDACTED);
    return result;
  };
}

/**
 * `value` with `redact` applied to every string in it (plain objects and arrays, recursively), so
 * secrets go from the raw text before any format escapes it: a secret holding `|`, a backtick or
 * `<` no longer matches once Markdown, XML or a workflow command has escaped it.
 */
export function redactStrings<T>(value: T, redact: Redactor): T {
  return redactValue(value, redact) as T;
}

function redactValue(value: unknown, redact: Redactor): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (typeof value !== "object" || value === null) return value;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, redact)]),
  );
}
