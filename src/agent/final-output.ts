import { clip } from "../format.js";
import { textOf } from "../model/model-client.js";
import type { JsonObject } from "./events.js";
import type { RunState } from "./run-state.js";

// A final reply (one that ends the turn without tool calls) of a task with `output_schema`: its
// JSON object completes the run, or the problems go back to the model, up to `maxRetries` times.

/** What a final reply comes to. */
export type FinalJudgement =
  /** The run completes; with the reply's JSON object when the task asks for one. */
  | { kind: "completed"; structuredOutput: JsonObject | undefined }
  /** The reply is not valid and a retry is left: `message` goes to the model. */
  | { kind: "retry"; message: string }
  /** The reply is not valid and no retry is left: the run ends with `invalid_output`. */
  | { kind: "invalid"; error: string };

/** Most characters of the problems the run's error quotes (the retry message has them all). */
const MAX_ERROR_PROBLEM_CHARS = 500;

/**
 * Judges the agent's last reply as its final one. Without an output schema (and always for a
 * subagent, whose options carry none) it completes the run. A retry is counted as it is judged.
 */
export function judgeFinalReply(state: RunState): FinalJudgement {
  const { output } = state.options;
  if (output === undefined) return { kind: "completed", structuredOutput: undefined };
  const verdict = output.check(textOf(state.lastReply?.content ?? []));
  if (verdict.ok) return { kind: "completed", structuredOutput: verdict.value };
  if (state.outputRetries >= output.maxRetries) {
    const retries = `${output.maxRetries} ${output.maxRetries === 1 ? "retry" : "retries"}`;
    const problems = clip(verdict.problems, MAX_ERROR_PROBLEM_CHARS);
    return {
      kind: "invalid",
      error: `the final reply is not valid against output_schema after ${retries} (output_retries): ${problems}`,
    };
  }
  state.outputRetries += 1;
  return { kind: "retry", message: retryMessage(verdict.problems) };
}

/** What the model is told when its final reply is not the JSON object the task asks for. */
export function retryMessage(problems: string): string {
  // One line in the progress log: the problems end as a sentence before the request.
  const end = /[.!?]$/.test(problems) ? "" : ".";
  return `Your final reply is not the JSON object this task asks for: ${problems}${end}\nReply again with only the JSON object, valid against the JSON Schema in your instructions, and no other text (a \`\`\`json block is accepted).`;
}
