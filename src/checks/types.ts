import type { PlanItem } from "../tools/plan-store.js";
import type { SandboxLimits } from "../tools/sandbox.js";
import type { ChangedFile } from "../workspace/changes.js";

/** The kinds of check a task file can declare under `checks:`. */
export const CHECK_KINDS = [
  "run",
  "file_exists",
  "file_absent",
  "file_contains",
  "file_matches",
  "changed_files",
  "final_text_matches",
  "plan_complete",
  "output_equals",
] as const;

export type CheckKind = (typeof CHECK_KINDS)[number];

/** A check as resolved from the task file: what to verify, and where it was written (for annotations). */
export type Check =
  | { kind: "run"; name: string; line: number; command: string; timeoutMs: number }
  | { kind: "file_exists"; name: string; line: number; path: string }
  | { kind: "file_absent"; name: string; line: number; path: string }
  | { kind: "file_contains"; name: string; line: number; path: string; text: string }
  | { kind: "file_matches"; name: string; line: number; path: string; pattern: string }
  | {
      kind: "changed_files";
      name: string;
      line: number;
      only: string[] | undefined;
      must: string[] | undefined;
      max: number | undefined;
    }
  | { kind: "final_text_matches"; name: string; line: number; pattern: string }
  | { kind: "plan_complete"; name: string; line: number }
  /** `pointer` is a valid JSON Pointer; `value` a JSON value. */
  | { kind: "output_equals"; name: string; line: number; pointer: string; value: unknown };

/** One check's outcome, as `summary.json`, the transcript and the reports show it. */
export type CheckResult = {
  name: string;
  /** A declared check's kind, or `git_unchanged`: the check agent-run adds when a .git changed. */
  kind: CheckKind | "git_unchanged";
  passed: boolean;
  /** Why it passed or failed, in a sentence (`src/app.js does not contain "export"`). */
  message: string;
  /** The command's output for `run` checks (capped), else null. */
  output: string | null;
  /** The check's line in the task file. */
  line: number;
  durationMs: number;
};

/** What checks see of a finished run: they read the workspace and run commands in it, nothing else. */
export type CheckContext = {
  /** Absolute path of the final workspace: commands run here, file paths are relative to it. */
  workspace: string;
  /** What the run changed, as the summary reports it. */
  changedFiles: readonly ChangedFile[];
  /** The agent's last message ("" when it wrote none). */
  finalText: string;
  /** The top-level agent's plan as it ended (undefined when it wrote none). */
  plan?: readonly PlanItem[] | undefined;
  /** The run's structured output (undefined when it has none: no `output_schema`, or no valid reply). */
  structuredOutput?: Readonly<Record<string, unknown>> | undefined;
  /** The complete environment of `run` commands; the caller leaves out the API key. */
  baseEnv: Record<string, string>;
  /** `run` checks run under the same sandbox as the agent's commands (they run code it wrote). */
  sandbox?: "none" | "bwrap";
  /** The sandbox's limits, as for the agent's commands. */
  sandboxLimits?: Readonly<SandboxLimits> | undefined;
  /** Paths the sandbox keeps read-only, as for the agent's commands. */
  readOnlyPaths?: readonly string[] | Promise<readonly string[]> | undefined;
  /** Kills running `run` commands; pass a fresh one, not the signal the task's timeout already aborted. */
  signal: AbortSignal;
};

/** What evaluating one check yields; `runChecks` adds the name, kind, line and duration. */
export type CheckOutcome = { passed: boolean; message: string; output: string | null };
