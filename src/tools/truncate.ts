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
  const head = sliceHead(text, headChars);
  const tail = sliceTail(text, tailChars);
  return joinAroundCut(head, text.length - head.length - tail.length, tail);
}

/** The first `chars` characters, one fewer rather than half of a surrogate pair (an emoji). */
export function sliceHead(text: string, chars: number): string {
  const head = text.slice(0, Math.max(chars, 0));
  return isHighSurrogate(head.charCodeAt(head.length - 1)) ? head.slice(0, -1) : head;
}

/** The last `chars` characters, one fewer rather than half of a surrogate pair. */
export function sliceTail(text: string, chars: number): string {
  const tail = chars > 0 ? text.slice(-chars) : "";
  return isLowSurrogate(tail.charCodeAt(0)) ? tail.slice(1) : tail;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Head and tail around the marker saying how many characters were cut between them. */
export function joinAroundCut(head: string, cutChars: number, tail: string): string {
  return `${head}\n[... ${cutChars} characters cut ...]\n${tail}`;
}

/** Shortens one line to `maxChars`, saying how much is left, so one huge line stays readable. */
export function truncateLine(line: string, maxChars: number = MAX_LINE_CHARS): string {
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars)} [... line truncated, ${line.length - maxChars} more characters]`;
}
