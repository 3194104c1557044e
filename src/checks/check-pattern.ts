/** Users coming from other tools write `(?i)`; JavaScript spells it as the `i` flag. */
const CASE_INSENSITIVE_PREFIX = "(?i)";

/**
 * Compiles a check's regex as written in the task file: a JavaScript regex without flags, or
 * with a leading `(?i)` for case-insensitive matching. One place, so load-time validation and
 * evaluation agree.
 * @throws SyntaxError when the pattern is not a valid regular expression.
 */
export function compileCheckPattern(pattern: string): RegExp {
  if (pattern.startsWith(CASE_INSENSITIVE_PREFIX)) {
    return new RegExp(pattern.slice(CASE_INSENSITIVE_PREFIX.length), "i");
  }
  return new RegExp(pattern);
}

/** Why a pattern does not compile, without JavaScript's "Invalid regular expression: " prefix; undefined when it does. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compileCheckPattern(pattern);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.replace(/^Invalid regular expression: /, "");
    return pattern.includes(CASE_INSENSITIVE_PREFIX, 1)
      ? `${reason}; (?i) works only at the very start of the pattern`
      : reason;
  }
}
