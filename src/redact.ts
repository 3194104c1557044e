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
 * A redactor for these values: each is replaced with `[REDACTED]`, longest first so one secret
 * inside another is still hidden, in every form an output may hold it in (see `formsOf`).
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = [...new Set(secrets.flatMap(formsOf))]
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
 * A secret as written, JSON-escaped (JSONL and JSON files), C-quoted as git quotes a file name in a
 * patch (`s\303\251cret`), and each line of a secret that has several (a patch prefixes every
 * line with `+`, so the whole value never appears in one piece).
 */
function formsOf(secret: string): string[] {
  const lines = secret.includes("\n") ? secret.split(/\r?\n/) : [];
  return [secret, JSON.stringify(secret).slice(1, -1), gitQuoted(secret), ...lines];
}

/** Git's quoting of a path (quote.c): `"` and `\` escaped, control and non-ASCII bytes as octal. */
function gitQuoted(text: string): string {
  const named: Record<number, string> = {
    7: "a",
    8: "b",
    9: "t",
    10: "n",
    11: "v",
    12: "f",
    13: "r",
  };
  let quoted = "";
  for (const byte of Buffer.from(text)) {
    if (byte === 0x22 || byte === 0x5c) quoted += `\\${String.fromCharCode(byte)}`;
    else if (named[byte] !== undefined) quoted += `\\${named[byte]}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, "0")}`;
    else quoted += String.fromCharCode(byte);
  }
  return quoted;
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
