import type { AgentEvent } from "../agent/events.js";
import type { CheckResult } from "../checks/types.js";
import { type Redactor, redactStrings } from "../redact.js";
import type { Report } from "./aggregate.js";
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
  /**
   * A run's attempt failed on infrastructure and runs again, as attempt `next` of at most `max`
   * (`--retry-errors`); `onTaskEnd` follows for its last attempt only. `name` stays the run's.
   */
  onTaskRetry?(summary: TaskSummary, next: number, max: number): void;
  onTaskEnd?(summary: TaskSummary): void;
  /**
   * After the batch, with each run's summary, the batch's report (the table printed on stdout), and
   * the viewer's file when `--view` wrote one.
   */
  onBatchEnd?(
    summaries: readonly TaskSummary[],
    report: Report,
    outDir: string,
    viewFile?: string,
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
  /**
   * Writes one of agent-run's own GitHub workflow commands (built by `workflowCommand`) to stderr;
   * `writeErr` would neutralise it. Only the GitHub reporter uses it.
   */
  writeCommand?: ((line: string) => void) | undefined;
  /** Hides secret values in what is written to files. */
  redact?: Redactor;
};

/**
 * `reporter` fed with the secrets already gone from every event, check and summary, so each
 * format escapes redacted text rather than redacting escaped text.
 */
export function withRedactedInput<R extends Reporter>(
  reporter: R,
  redact: Redactor | undefined,
): R {
  if (redact === undefined) return reporter;
  const clean = <T>(value: T) => redactStrings(value, redact);
  return {
    ...reporter,
    ...(reporter.onTaskStart && {
      onTaskStart: (name: string, detail: string) => reporter.onTaskStart?.(name, clean(detail)),
    }),
    ...(reporter.onEvent && {
      onEvent: (name: string, event: AgentEvent) => reporter.onEvent?.(name, clean(event)),
    }),
    ...(reporter.onCheck && {
      onCheck: (name: string, check: CheckResult) => reporter.onCheck?.(name, clean(check)),
    }),
    ...(reporter.onTaskRetry && {
      onTaskRetry: (summary: TaskSummary, next: number, max: number) =>
        reporter.onTaskRetry?.(clean(summary), next, max),
    }),
    ...(reporter.onTaskEnd && {
      onTaskEnd: (summary: TaskSummary) => reporter.onTaskEnd?.(clean(summary)),
    }),
    ...(reporter.onBatchEnd && {
      onBatchEnd: (
        summaries: readonly TaskSummary[],
        report: Report,
        outDir: string,
        viewFile?: string,
      ) =>
        reporter.onBatchEnd?.(clean(summaries), clean(report), outDir, viewFile) ??
        Promise.resolve(),
    }),
  };
}
