/**
 * Users coming from other tools write inline flags, `(?i)`; JavaScript spells them after the
 * pattern. A check's regex may start with one such group; Node 20 has no inline flags elsewhere.
 */
const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;

/** The inline flags a leading group may hold, as JavaScript's flags of the same letter. */
const SUPPORTED_FLAGS = new Set(["i", "m", "s"]);

/**
 * An unescaped `\Z`: Python's end of text, a plain "Z" in JavaScript, so a silent mistake. JSON
 * Schema's `format: "regex"` (ajv-formats) refuses it too.
 */
const END_ANCHOR_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\Z/;

/** A leading group of supported flags only, as a JSON Schema pattern (the task schema's). */
export const FLAG_GROUP_PATTERN = `^\\(\\?[${[...SUPPORTED_FLAGS].join("")}]+\\)`;

/** What a check's regex may be, for the messages that refuse one. */
const SUPPORTED_SYNTAX =
  "a check's regex is a JavaScript regular expression, optionally starting with one flag group: (?i) ignores case, (?m) makes ^ and $ match at each line, (?s) lets . match line breaks, combined as (?ims)";

/**
 * Compiles a check's regex as written in the task file: a JavaScript regex without flags, or
 * with a leading group of flags (`(?i)`, `(?s)`, `(?ims)`). One place, so load-time validation
 * and evaluation agree.
 * @throws SyntaxError when the pattern is not a valid regular expression or names another flag.
 */
export function compileCheckPattern(pattern: string): RegExp {
  if (END_ANCHOR_ESCAPE.test(pattern)) {
    throw new SyntaxError(
      '\\Z is not JavaScript syntax (it matches a plain "Z"); write $ for the end of the text',
    );
  }
  const group = LEADING_FLAGS.exec(pattern);
  if (group?.[1] === undefined) return new RegExp(pattern);
  const letters = [...new Set(group[1])];
  const unsupported = letters.filter((letter) => !SUPPORTED_FLAGS.has(letter));
  if (unsupported.length > 0) {
    throw new SyntaxError(
      `flag ${unsupported.join(", ")} in ${group[0]} is not supported; ${SUPPORTED_SYNTAX}`,
    );
  }
  return new RegExp(pattern.slice(group[0].length), letters.join(""));
}

/** Why a pattern does not compile, without JavaScript's "Invalid regular expression: " prefix; undefined when it does. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compileCheckPattern(pattern);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.replace(/^Invalid regular expression: /, "");
    const rest = pattern.replace(LEADING_FLAGS, "");
    return /\(\?[a-zA-Z-]+[:)]/.test(rest)
      ? `${reason}; flags work only as one group at the very start of the pattern: ${SUPPORTED_SYNTAX}`
      : reason;
  }
}
