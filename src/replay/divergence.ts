import type { AgentEvent } from "../agent/events.js";
import type { RecordedToolResult } from "./recorded-steps.js";

/** Where a replay's tool results first differ from the recording, and how often. */
export type DivergenceReport = {
  /** Top-level steps whose results were compared (steps the recording has results for). */
  comparedSteps: number;
  /** Top-level steps with at least one differing result (a subagent's counts for its step). */
  divergentSteps: number[];
  first:
    | {
        /** The top-level agent's step (the step of the `task` call, for a subagent's result). */
        step: number;
        toolName: string;
        recorded: string;
        replayed: string;
        diff: string;
        /** Set when the result is a subagent's: its `task` call and its own step. */
        subagent?: { toolUseId: string; step: number } | undefined;
      }
    | undefined;
};

/** The two workspace paths, which differ between a run and its replay and are not a divergence. */
export type WorkspacePaths = { recorded: string; replayed: string };

/** A recording's tool results: the top-level agent's by step, and each subagent's. */
export type RecordedResults = {
  toolResults: readonly RecordedToolResult[][];
  subagents: ReadonlyMap<string, { toolResults: readonly RecordedToolResult[][] }>;
};

/** One result of the replay, in the order they came, and where it sits in the run. */
type Replayed = {
  /** The subagent's `task` call id; "" for the top-level agent. */
  agent: string;
  step: number;
  rootStep: number;
  position: number;
  result: RecordedToolResult;
};

/**
 * Collects a replay's tool results (top-level steps 1..`untilStep`, with their subagents'), then
 * compares each with the recorded one of the same agent, step and position, except calls cut short
 * by a cancellation or timeout and MCP calls served from the recording. Before comparing, the
 * workspace paths become `<workspace>`, and the timings in the output of commands (`12.3ms`,
 * `duration_ms 45`: bash's, and those of the tools named in `commandTools`) are masked: they
 * differ on every run.
 */
export function createDivergenceTracker(
  recorded: RecordedResults,
  untilStep: number,
  commandTools: readonly string[] = [],
) {
  const commands = new Set(["bash", ...commandTools]);
  const normalize = (result: RecordedToolResult, workspace: string) =>
    normalizeResult(result, workspace, commands);
  const isSame = (a: RecordedToolResult, b: RecordedToolResult, paths: WorkspacePaths) =>
    a.toolName === b.toolName &&
    a.isError === b.isError &&
    normalize(a, paths.recorded) === normalize(b, paths.replayed);
  const replayed: Replayed[] = [];
  const positions = new Map<string, number>();
  return {
    onEvent(event: AgentEvent): void {
      if (event.type !== "tool_result") return;
      const rootStep = event.subagent?.rootStep ?? event.step;
      if (rootStep > untilStep) return;
      const agent = event.subagent?.parentToolUseId ?? "";
      const at = `${agent} ${event.step}`;
      const position = positions.get(at) ?? 0;
      positions.set(at, position + 1);
      const result = {
        toolName: event.toolName,
        content: event.block.content,
        isError: event.block.is_error === true,
        isInterrupted: event.isInterrupted === true,
        isFromRecording: event.isFromRecording === true,
      };
      replayed.push({ agent, step: event.step, rootStep, position, result });
    },
    report(paths: WorkspacePaths): DivergenceReport {
      const compared = new Set<number>();
      const divergent = new Set<number>();
      let first: DivergenceReport["first"];
      for (const entry of replayed) {
        const expected = recordedResult(recorded, entry);
        // A call cut short by a cancellation or timeout (then or now) ran again: not comparable.
        // An MCP call served from the recording did not run again: nothing to compare.
        if (expected === undefined || expected.isInterrupted || entry.result.isInterrupted)
          continue;
        if (entry.result.isFromRecording === true) continue;
        compared.add(entry.rootStep);
        if (isSame(expected, entry.result, paths)) continue;
        divergent.add(entry.rootStep);
        first ??= {
          step: entry.rootStep,
          toolName: entry.result.toolName,
          recorded: expected.content,
          replayed: entry.result.content,
          diff: shortDiff(
            normalize(expected, paths.recorded),
            normalize(entry.result, paths.replayed),
          ),
          ...(entry.agent === "" ? {} : { subagent: { toolUseId: entry.agent, step: entry.step } }),
        };
      }
      const divergentSteps = [...divergent].sort((a, b) => a - b);
      return { comparedSteps: compared.size, divergentSteps, first };
    },
  };
}

function recordedResult(
  recorded: RecordedResults,
  entry: Replayed,
): RecordedToolResult | undefined {
  const results =
    entry.agent === "" ? recorded.toolResults : recorded.subagents.get(entry.agent)?.toolResults;
  return results?.[entry.step - 1]?.[entry.position];
}

/** A result's content as compared: its workspace path replaced, and a command's timings masked. */
function normalizeResult(
  result: RecordedToolResult,
  workspace: string,
  commands: ReadonlySet<string>,
): string {
  const content =
    workspace === "" ? result.content : result.content.split(workspace).join("<workspace>");
  return commands.has(result.toolName) ? maskTimings(content) : content;
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
