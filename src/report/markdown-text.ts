import { showControls } from "../format.js";

// Untrusted text (task and check names, statuses, messages, file names, the model's words) in
// Markdown that GitHub renders (job summaries, pull-request bodies): shown as text, never as live
// Markdown, HTML, links or images.

/**
 * ASCII punctuation that has no inline meaning in CommonMark or GFM, and so stays as it is
 * (`fix-bug`, `3.2s`; `(` and `!` start nothing once every `[` is escaped); every other ASCII
 * punctuation character is backslash-escaped, which CommonMark allows for all of them. `:` is
 * escaped: it makes GFM's bare `https:` autolinks; `.` only after `www`, which makes `www.x.y` ones.
 */
const INERT_PUNCTUATION = new Set([..."!\"%'()+,-/;=?^{}"]);

/**
 * What a backslash cannot neutralise: entity and HTML starts, written as entities; and `@`, which
 * GFM turns into an email link after escapes are read (cmark-gfm's autolink `postprocess_text`
 * scans the text for `@`), so a zero-width space goes before it, and the address has no local part.
 */
const REPLACEMENTS: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "@": "\u200b\\@",
};

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

/** Line breaks and other white space runs become one space (a table row or list item stays one line). */
const WHITE_SPACE = /\s+/g;

/**
 * How untrusted text goes into a table cell or a list item: `markdown` escapes it for a renderer
 * (job summaries, pull-request bodies); `plain` keeps it as it is for a terminal or a log, where a
 * backslash would show.
 */
export type TextStyle = "markdown" | "plain";

/** `text` on one line in `style`; controls are shown as `\xNN` either way. */
export function inlineText(text: string, style: TextStyle): string {
  return style === "markdown" ? markdownText(text) : showControls(text.replace(WHITE_SPACE, " "));
}

/** `text` as literal inline Markdown, on one line. */
export function markdownText(text: string): string {
  return showControls(text.replace(WHITE_SPACE, " ")).replace(
    ASCII_PUNCTUATION,
    (char, offset: number, whole: string) =>
      isInert(char, whole.slice(Math.max(0, offset - 3), offset), whole[offset + 1] ?? "")
        ? char
        : (REPLACEMENTS[char] ?? `\\${char}`),
  );
}

/**
 * `_` between two letters or digits can neither open nor close emphasis (CommonMark's flanking
 * rules), so `max_steps` stays readable; `.` makes a link only as `www.`.
 */
function isInert(char: string, before: string, after: string): boolean {
  if (INERT_PUNCTUATION.has(char)) return true;
  if (char === "_") return /[A-Za-z0-9]$/.test(before) && /^[A-Za-z0-9]/.test(after);
  if (char === ".") return before.toLowerCase() !== "www";
  return false;
}
