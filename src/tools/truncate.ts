/** Most characters of command output sent back to the model (~7.5k tokens); the rest is cut. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;

/** Longest single line read_file returns; minified files would otherwise eat the whole budget. */
export const MAX_LINE_CHARS = 2_000;

/**
 * Keeps the first and last `maxChars / 2` characters and replaces the middle with a marker saying
 * how many were cut, because errors tend to sit at the end of output and context at the start.
 * The marker comes on top of `maxChars`.
 */
export function truncateMiddle(text: string, maxChars: number = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  const headChars = Math.ceil(maxChars / 2);
  const tailChars = maxChars - headChars;
  const cut = text.length - maxChars;
  const head = text.slice(0, headChars);
  const tail = tailChars > 0 ? text.slice(-tailChars) : "";
  return `${head}\n[... ${cut} characters cut ...]\n${tail}`;
}

/** Shortens one line to `maxChars`, saying how much is left, so one huge line stays readable. */
export function truncateLine(line: string, maxChars: number = MAX_LINE_CHARS): string {
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars)} [... line truncated, ${line.length - maxChars} more characters]`;
}
