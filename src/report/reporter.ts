import type { AgentEvent } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import type { Redactor } from "../redact.js";
import type { TaskSummary } from "./summary.js";

/**
 * What hears of a batch as it runs: the log lines, the live view, GitHub's groups and files. Every
 * hook is optional; a reporter implements the ones it needs.
 */
export type Reporter = {
  /** `detail`: the model and where the agent works, e.g. `claude-sonnet-5-5, offline, on a copy in …`. */
  onTaskStart?(name: string, detail: string): void;
  onEvent?(name: string, event: AgentEvent): void;
  onCheck?(name: string, check: CheckResult): void;
  onTaskEnd?(summary: TaskSummary): void;
  /** After the batch, with its report as Markdown (the table printed on stdout). */
  onBatchEnd?(
    summaries: readonly TaskSummary[],
    reportMarkdown: string,
    outDir: string,
  ): Promise<void>;
};

/** Where reporters write: stderr, the terminal, and the environment (GitHub's files). */
export type ReportIo = {
  env: Readonly<Record<string, string | undefined>>;
  writeErr: (line: string) => void;
  /** Writes to stderr as is (no newline added); only on a terminal, for the live view. */
  writeErrRaw?: ((text: string) => void) | undefined;
  /** The terminal's width, for the live view. */
  columns: number;
  /** Colours on stderr: a TTY, and neither `CI` nor `NO_COLOR` set. */
  isColor: boolean;
  /** Hides secret values in what is written to files. */
  redact?: Redactor;
};
