import type { AgentEvent } from "../agent/events.js";
import type { RecordedToolResult } from "./recorded-run.js";

/** Where a replay's tool results first differ from the recording, and how often. */
export type DivergenceReport = {
  /** Steps whose results were compared (steps the recording has results for). */
  comparedSteps: number;
  /** Steps with at least one differing result. */
  divergentSteps: number[];
  first:
    | { step: number; toolName: string; recorded: string; replayed: string; diff: string }
    | undefined;
};

/**
 * Compares each tool result of a replay with the recorded one at the same step and position.
 * Timings in outputs (`12.3ms`, `duration_ms 45`) are masked first, so they never count.
 */
export function createDivergenceTracker(
  recorded: readonly RecordedToolResult[][],
  untilStep: number,
) {
  const divergent = new Set<number>();
  const compared = new Set<number>();
  const seen = new Map<number, number>();
  let first: DivergenceReport["first"];
  return {
    onEvent(event: AgentEvent): void {
      if (event.type !== "tool_result" || event.step > untilStep) return;
      const index = seen.get(event.step) ?? 0;
      seen.set(event.step, index + 1);
      const expected = recorded[event.step - 1]?.[index];
      if (expected === undefined) return;
      compared.add(event.step);
      const replayed = {
        toolName: event.toolName,
        content: event.block.content,
        isError: event.block.is_error === true,
      };
      if (isSame(expected, replayed)) return;
      divergent.add(event.step);
      first ??= {
        step: event.step,
        toolName: event.toolName,
        recorded: expected.content,
        replayed: replayed.content,
        diff: shortDiff(expected.content, replayed.content),
      };
    },
    report(): DivergenceReport {
      return {
        comparedSteps: compared.size,
        divergentSteps: [...divergent].sort((a, b) => a - b),
        first,
      };
    },
  };
}

function isSame(a: RecordedToolResult, b: RecordedToolResult): boolean {
  return (
    a.toolName === b.toolName &&
    a.isError === b.isError &&
    maskTimings(a.content) === maskTimings(b.content)
  );
}

/** Replaces durations, which differ from run to run, with a placeholder. */
export function maskTimings(text: string): string {
  return text
    .replace(/\bduration_ms[:= ]+\d+(\.\d+)?/g, "duration_ms <t>")
    .replace(/\b\d+(\.\d+)?\s?(ms|s)\b/g, "<t>");
}

/** The first differing line of two outputs, with its line number. */
export function shortDiff(recorded: string, replayed: string): string {
  const a = recorded.split("\n");
  const b = replayed.split("\n");
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    if (maskTimings(a[index] ?? "") !== maskTimings(b[index] ?? "")) {
      const clip = (line: string | undefined) =>
        line === undefined ? "(no line)" : JSON.stringify(line.slice(0, 200));
      return `line ${index + 1}:\n- recorded: ${clip(a[index])}\n+ replayed: ${clip(b[index])}`;
    }
  }
  return "the outputs differ only in whether the tool reported an error";
}
