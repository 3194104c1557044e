import { basename, dirname } from "node:path";
import { messageOf } from "../errors.js";
import { ZERO_USAGE } from "../model/model-client.js";
import { InitLineSchema, type TranscriptLine } from "../transcript/line-schemas.js";
import { isComplete, parseTranscript, readTranscriptText } from "../transcript/reader.js";
import type { RunSummary } from "./run-summary.js";
import { TaskNameJsonSchema } from "./summary-json-schema.js";

/** The status a report gives a run that has a transcript but no `summary.json`. */
export const INTERRUPTED_STATUS = "interrupted";

/**
 * A run folder holding a transcript but no `summary.json`: a run killed (SIGKILL) before it
 * finished, or one still running. It is counted as `interrupted`, failed and its cost unknown, so
 * a killed batch is never reported green. Returns why not instead when the transcript is not one
 * agent-run could have left (it is read as hostile input).
 */
export async function readUnfinishedRun(
  folder: string,
  transcript: string,
  trialOfFolder: number | undefined = undefined,
): Promise<RunSummary | { problem: string }> {
  let lines: TranscriptLine[];
  try {
    // Empty: killed before its init line was written (the workspace was being copied).
    const text = await readTranscriptText(transcript);
    lines =
      text === "" ? [] : parseTranscript(text, transcript, { isPartialLastLineDropped: true });
  } catch (error) {
    return { problem: messageOf(error) };
  }
  // Without an init line, the folder names the task (a trial's, its task's folder).
  const init = InitLineSchema.safeParse(lines[0]).data;
  const named = trialOfFolder === undefined ? basename(folder) : basename(dirname(folder));
  const name = TaskNameJsonSchema.safeParse(init?.task.name ?? named);
  if (!name.success) return { problem: `the task name ${name.error.issues[0]?.message ?? ""}` };
  const file = init?.task.file;
  return {
    name: name.data,
    taskFile: typeof file === "string" ? file : "",
    status: INTERRUPTED_STATUS,
    passed: false,
    error: whyUnfinished(lines),
    model: init?.model ?? "",
    steps: 0,
    usage: ZERO_USAGE,
    totalTokens: 0,
    costUsd: null,
    durationMs: 0,
    changedFileCount: 0,
    changedFiles: [],
    checks: [],
    limitExceededByFinalReply: null,
    plan: undefined,
    errorKind: null,
    trial: init === undefined ? trialOfFolder : init.trial?.index,
    attempt: init?.attempt ?? 1,
    earlierAttempts: [],
    // Its summary would have said; a comparison lists the task as without a fingerprint.
    fingerprint: null,
    folder,
  };
}

function whyUnfinished(lines: readonly TranscriptLine[]): string {
  if (lines.length === 0) {
    return "the run did not finish: its transcript is empty (agent-run was killed while preparing the workspace, or is still running); run the task again";
  }
  return isComplete(lines)
    ? "the run ended but its summary.json is missing (agent-run was killed while writing it)"
    : "the run did not finish: its transcript has no result line (agent-run was killed, or is still running); its steps, tokens and cost are not counted; `agent-run resume OUT` continues it";
}
