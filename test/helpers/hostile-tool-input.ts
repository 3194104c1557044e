/**
 * Tool input a model could send to break out of a shell command that quoted it badly: quotes,
 * backticks, `$(…)`, `;`, redirections, newlines and control characters (NUL-free), in values and
 * keys. A command tool must hand it to its command byte for byte, and run none of it.
 */
export const HOSTILE_TOOL_INPUT = {
  id: `'"; touch pwned; echo "'`,
  query: "$(touch pwned) `touch pwned` $IFS; rm -rf x && touch pwned || touch pwned",
  lines: "first\nsecond\r\nthird\n\ttabbed\n; touch pwned\n",
  controls: "\u0001\u0002\u0007\b\u000b\f\u001b[31m\u007f",
  unicode: "snowman ☃, emoji 😀, right-to-left \u202e, zero-width \u200b",
  "key with $(touch pwned) and 'quotes'": [">pwned", "|touch pwned", "&touch pwned"],
  nested: { deeper: { value: "\\\\'\\\"`", count: -1.5e-7, yes: true, none: null } },
} as const;

/** The bytes a command tool writes on its command's stdin for `input`. */
export function stdinBytesOf(input: unknown): Buffer {
  return Buffer.from(JSON.stringify(input));
}
