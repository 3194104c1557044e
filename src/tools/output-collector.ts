import { joinAroundCut, sliceHead, sliceTail, truncateMiddle } from "./truncate.js";

/**
 * Keeps the first and last characters of a stream in bounded memory while it arrives, and counts
 * the characters dropped between them, so a command printing gigabytes costs about `maxChars`.
 */
export type OutputCollector = {
  /** Adds the next piece of decoded output. */
  push(text: string): void;
  /**
   * The output so far in at most `maxChars` characters (plus the cut marker): the first and last
   * halves around `[... N characters cut ...]`, like `truncateMiddle` on the whole output.
   * `maxChars` above the collector's own cap is treated as the cap. One final newline is dropped.
   */
  render(maxChars: number): string;
  /** Characters seen so far, kept or not. */
  totalChars(): number;
};

/** How many dropped tail chunks may pile up at the front of the queue before it is compacted. */
const MAX_DROPPED_CHUNKS = 1024;

/**
 * Creates a collector keeping the first `ceil(maxChars / 2)` characters as they come and the last
 * `floor(maxChars / 2)` in a queue of chunks, dropping whole chunks from its front once the rest
 * still covers the tail (memory: `maxChars` plus one chunk).
 */
export function createOutputCollector(maxChars: number): OutputCollector {
  const headCap = Math.ceil(maxChars / 2);
  const tailCap = maxChars - headCap;
  let head = "";
  let total = 0;
  let tailChunks: string[] = [];
  let tailStart = 0;
  let tailChars = 0;

  const dropOldTailChunks = () => {
    for (;;) {
      const oldest = tailChunks[tailStart];
      // Two spare characters: the final newline stripped on render must not shorten the tail.
      if (oldest === undefined || tailChars - oldest.length < tailCap + 2) break;
      tailChars -= oldest.length;
      // Release the chunk now; the slot itself goes at the next compaction.
      tailChunks[tailStart] = "";
      tailStart += 1;
    }
    if (tailStart > MAX_DROPPED_CHUNKS) {
      tailChunks = tailChunks.slice(tailStart);
      tailStart = 0;
    }
  };

  return {
    push(text) {
      total += text.length;
      let rest = text;
      if (head.length < headCap) {
        const room = headCap - head.length;
        head += rest.slice(0, room);
        rest = rest.slice(room);
      }
      if (rest === "") return;
      tailChunks.push(rest);
      tailChars += rest.length;
      dropOldTailChunks();
    },
    render(requestedChars) {
      const tail = tailChunks.slice(tailStart).join("");
      return renderKept(head, tail, total, Math.min(requestedChars, maxChars));
    },
    totalChars: () => total,
  };
}

/** Builds the shown output from the kept head and tail and the total seen. */
function renderKept(head: string, tail: string, total: number, maxChars: number): string {
  const kept = stripFinalNewline(head, tail);
  const shownTotal = total - (head.length + tail.length - kept.head.length - kept.tail.length);
  // Nothing dropped: the kept text is the whole output.
  if (kept.head.length + kept.tail.length === shownTotal) {
    return truncateMiddle(kept.head + kept.tail, maxChars);
  }
  const headChars = Math.ceil(maxChars / 2);
  const shownHead = sliceHead(kept.head, headChars);
  const shownTail = sliceTail(kept.tail, maxChars - headChars);
  return joinAroundCut(shownHead, shownTotal - shownHead.length - shownTail.length, shownTail);
}

/** Drops one final `\n` or `\r\n`, as execa did when it buffered the output. */
function stripFinalNewline(head: string, tail: string): { head: string; tail: string } {
  if (tail !== "") return { head, tail: tail.replace(/\r?\n$/, "") };
  return { head: head.replace(/\r?\n$/, ""), tail };
}
