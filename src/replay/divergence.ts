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

/** The two workspace paths, which differ between a run and its replay and are not a divergence. */
export type WorkspacePaths = { recorded: string; replayed: string };

/**
 * Collects a replay's tool results (steps 1..`untilStep`), then compares each with the recorded
 * one at the same step and position, except calls cut short by a cancellation or timeout and MCP
 * calls served from the recording. Before comparing, the workspace paths become `<workspace>`,
 * and bash output's timings (`12.3ms`, `duration_ms 45`) are masked: they differ on every run.
 */
export function createDivergenceTracker(
  recorded: readonly RecordedToolResult[][],
  untilStep: number,
) {
  const replayed: RecordedToolResult[][] = [];
  return {
    onEvent(event: AgentEvent): void {
      if (event.type !== "tool_result" || event.step > untilStep) return;
      const step = replayed[event.step - 1] ?? [];
      replayed[event.step - 1] = step;
      step.push({
        toolName: event.toolName,
        content: event.block.content,
        isError: event.block.is_error === true,
        isInterrupted: event.isInterrupted === true,
        isFromRecording: event.isFromRecording === true,
      });
    },
    report(paths: WorkspacePaths): DivergenceReport {
      const divergent: number[] = [];
      let compared = 0;
      let first: DivergenceReport["first"];
      for (const [index, results] of replayed.entries()) {
        const pairs = (results ?? []).flatMap((result, position) => {
          const expected = recorded[index]?.[position];
          // A call the cancellation or timeout cut short (then or now) ran again: not comparable.
          // An MCP call served from the recording did not run again: nothing to compare.
          if (expected === undefined || expected.isInterrupted || result.isInterrupted) return [];
          if (result.isFromRecording === true) return [];
          return [{ expected, result }];
        });
        if (pairs.length === 0) continue;
        compared += 1;
        const differing = pairs.find(({ expected, result }) => !isSame(expected, result, paths));
        if (differing === undefined) continue;
        divergent.push(index + 1);
        first ??= {
          step: index + 1,
          toolName: differing.result.toolName,
          recorded: differing.expected.content,
          replayed: differing.result.content,
          diff: shortDiff(
            normalize(differing.expected, paths.recorded),
            normalize(differing.result, paths.replayed),
          ),
        };
      }
      return { comparedSteps: compared, divergentSteps: divergent, first };
    },
  };
}

function isSame(a: RecordedToolResult, b: RecordedToolResult, paths: WorkspacePaths): boolean {
  return (
    a.toolName === b.toolName &&
    a.isError === b.isError &&
    normalize(a, paths.recorded) === normalize(b, paths.replayed)
  );
}

/** A result's content as compared: its workspace path replaced, and bash timings masked. */
function normalize(result: RecordedToolResult, workspace: string): string {
  const content =
    workspace === "" ? result.content : result.content.split(workspace).join("<workspace>");
  return result.toolName === "bash" ? maskTimings(content) : content;
}

/** Replaces the timings test runners and tools print, which differ from run to run. */
export function maskTimings(text: string): string {
  return text
    .replace(/\bduration_ms[:= ]+\d+(\.\d+)?/g, "duration_ms <t>")
    .replace(/\b\d+(\.\d+)?\s?ms\b/g, "<t>ms")
    .replace(/\((\d+(\.\d+)?)s\)/g, "(<t>s)")
    .replace(/\bin \d+(\.\d+)?s\b/g, "in <t>s");
}

/** The first differing line of two outputs, with its line number. */
export function shortDiff(recorded: string, replayed: string): string {
  const a = recorded.split("\n");
  const b = replayed.split("\n");
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) {
      const clip = (line: string | undefined) =>
        line === undefined ? "(no line)" : JSON.stringify(line.slice(0, 200));
      return `line ${index + 1}:\n- recorded: ${clip(a[index])}\n+ replayed: ${clip(b[index])}`;
    }
  }
  return "the outputs are the same; only whether the tool reported an error differs";
}
