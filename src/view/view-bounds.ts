import type { Redactor } from "../redact.js";
import { sliceHead } from "../tools/truncate.js";
import type { BoundedText, ViewBounds } from "./view-data.js";

/** What a field keeps once the page's total is spent. */
const MIN_FIELD_CHARS = 2_000;

/**
 * What the viewer reads of a run folder and keeps in the page. Run folders are hostile input (a
 * transcript of gigabytes, a line of megabytes), and the page must stay one file a browser opens:
 * every read and every field is bounded, and the page says so.
 */
export const VIEW_BOUNDS: ViewBounds = {
  maxTranscriptBytes: 64 * 1024 * 1024,
  maxTranscriptLines: 20_000,
  maxPatchBytes: 8 * 1024 * 1024,
  maxFieldChars: 200_000,
  maxTotalChars: 64_000_000,
  minFieldChars: MIN_FIELD_CHARS,
  maxDiffLineChars: 2_000,
  maxSubagentDepth: 8,
  maxChangedFiles: 2_000,
};

/** Bounds one text field of the page; `redact` runs first, on the whole text. */
export type TextClipper = (text: string) => BoundedText;

/**
 * A clipper for one page: each field keeps at most `maxFieldChars` characters, and once the page
 * holds `maxTotalChars` in all, at most `MIN_FIELD_CHARS` more each. Secrets go before the cut, so
 * a secret cut in two is not left half shown.
 */
export function createTextClipper(
  redact: Redactor,
  bounds: Pick<ViewBounds, "maxFieldChars" | "maxTotalChars"> = VIEW_BOUNDS,
): TextClipper {
  let total = 0;
  return (raw) => {
    const text = redact(raw);
    const room = Math.max(
      MIN_FIELD_CHARS,
      Math.min(bounds.maxFieldChars, bounds.maxTotalChars - total),
    );
    const kept = cutAt(text, room);
    total += kept.length;
    return { text: kept, cut: text.length - kept.length };
  };
}

/** `text` cut to at most `max` characters, never inside a surrogate pair. */
export function cutAt(text: string, max: number): string {
  return text.length <= max ? text : sliceHead(text, max);
}
