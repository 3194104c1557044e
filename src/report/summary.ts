import type { ErrorKind, JsonObject, LimitExceeded, RunStatus } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import type { Usage } from "../model/model-client.js";
import { totalTokens } from "../model/model-client.js";
import type { PlanItem } from "../tools/plan-store.js";
import { completedCount } from "../tools/plan-store.js";
import { originLine, type RunOrigin } from "../transcript/init-line.js";
import { checkResultJson, usageLine } from "../transcript/lines.js";
import { type EarlierAttempt, type Trial, trialFields } from "../transcript/trials.js";
import type { ChangedFile } from "../workspace/changes.js";
import type { GitDirChange } from "../workspace/git-dir-state.js";
import type { RunFingerprintJson } from "./fingerprint.js";
import { SUMMARY_VERSION, type SummaryJson } from "./summary-json-schema.js";

/** The file in each run folder that holds its summary. */
export const SUMMARY_FILE = "summary.json";

/** What one task's run came to: written as `summary.json` and shown in the final table. */
export type TaskSummary = {
  name: string;
  taskFile: string;
  status: RunStatus;
  error: string | undefined;
  /** For `error`: what it failed on (see `ErrorKind`). */
  errorKind?: ErrorKind | undefined;
  model: string;
  steps: number;
  usage: Usage;
  costUsd: number | null;
  durationMs: number;
  finalText: string;
  changedFiles: ChangedFile[];
  /** What changed under a `.git` in the workspace: never in `changedFiles` or the patch. */
  gitChanges: GitDirChange[];
  workspace: string;
  runDir: string;
  /** `changes.patch` inside `runDir`, or null when it could not be written. */
  patchFile: string | null;
  /** The task's checks, evaluated after the agent stopped (empty when it has none). */
  checks: CheckResult[];
  /** Completed, and every check passed. */
  passed: boolean;
  /** Set for replays, forks and resumes. */
  origin?: RunOrigin | undefined;
  /** Which of its task's trials this run is; undefined when the task has one. */
  trial?: Trial | undefined;
  /** This run's attempt at its trial; 1 (or undefined) unless earlier ones failed on infrastructure. */
  attempt?: number | undefined;
  /** The earlier attempts at this trial (`--retry-errors`), oldest first. */
  earlierAttempts?: readonly EarlierAttempt[] | undefined;
  /** A completed run whose final answer went past a token or cost limit (see `RunResult`). */
  limitExceededByFinalReply?: LimitExceeded | undefined;
  /**
   * Tasks that offer `todo_write`: the top-level agent's plan as the run ended (null when it wrote
   * none); undefined for the others.
   */
  plan?: readonly PlanItem[] | null | undefined;
  /** A task with `output_schema` whose final reply was valid: its JSON object (also `output.json`). */
  structuredOutput?: JsonObject | undefined;
  /** What must match for the run to be compared with another (see `runFingerprint`). */
  fingerprint?: RunFingerprintJson | undefined;
};

/** What an attempt leaves for the next one to record. */
export function earlierAttemptOf(summary: TaskSummary): EarlierAttempt {
  return {
    status: summary.status,
    error: summary.error ?? null,
    errorKind: summary.errorKind ?? null,
    totalTokens: totalTokens(summary.usage),
    costUsd: summary.costUsd,
  };
}

/** `summary.json`'s JSON shape (snake_case, like the transcript), typed by its published schema. */
export function summaryJson(summary: TaskSummary): SummaryJson {
  return {
    schema_version: SUMMARY_VERSION,
    name: summary.name,
    task_file: summary.taskFile,
    status: summary.status,
    passed: summary.passed,
    error: summary.error ?? null,
    error_kind: summary.status === "error" ? (summary.errorKind ?? "other") : null,
    model: summary.model,
    steps: summary.steps,
    usage: usageLine(summary.usage),
    total_tokens: totalTokens(summary.usage),
    cost_usd: summary.costUsd,
    duration_ms: summary.durationMs,
    final_text: summary.finalText,
    changed_files: summary.changedFiles,
    git_changes: summary.gitChanges,
    workspace: summary.workspace,
    transcript: "transcript.jsonl",
    patch: summary.patchFile,
    ...(summary.origin === undefined ? {} : { origin: originLine(summary.origin) }),
    ...trialFields(summary),
    ...(summary.limitExceededByFinalReply === undefined
      ? {}
      : { limit_exceeded_by_final_reply: summary.limitExceededByFinalReply }),
    ...(summary.plan === undefined ? {} : { plan: planJson(summary.plan) }),
    ...(summary.structuredOutput === undefined
      ? {}
      : { structured_output: summary.structuredOutput }),
    ...(summary.fingerprint === undefined ? {} : { fingerprint: summary.fingerprint }),
    checks: summary.checks.map(checkResultJson),
  };
}

/**
 * How a task not run because another task's key was refused starts its `error`. The summary has
 * no other field that tells it from a task skipped by the batch budget, and JUnit must (an error,
 * not a skip that viewers show green).
 */
export const REFUSED_KEY_REASON = "not run: the API refused the key";

/** Whether a `skipped` task's error says it was not run because its key was refused. */
export function isRefusedKeySkip(status: string, error: string | null): boolean {
  return status === "skipped" && error?.startsWith(REFUSED_KEY_REASON) === true;
}

/** A plan as `summary.json` writes it: its items, and how many are completed. */
function planJson(items: readonly PlanItem[] | null) {
  if (items === null) return null;
  return {
    items: items.map((item) => ({ content: item.content, status: item.status })),
    completed: completedCount(items),
    total: items.length,
  };
}
