import { z } from "zod";
import { MAX_TRIALS } from "../task/schema-fields.js";

// Which trial of its task a run is, and which attempt at it (`--trials`, `--retry-errors`), as the
// init line and `summary.json` record them.

/** Which of its task's trials a run is, in the init line and `summary.json`. */
export const TrialJsonSchema = z
  .object({
    index: z.number().int().min(1).max(MAX_TRIALS),
    count: z.number().int().min(2).max(MAX_TRIALS),
  })
  .refine((trial) => trial.index <= trial.count, "index: more than count")
  .describe("Which of the task's trials this run is (index from 1), when it has more than one.");

/** A run's attempt at its trial, when not the first (`--retry-errors`). */
export const AttemptJsonSchema = z
  .number()
  .int()
  .min(2)
  .describe(
    "The attempt this run is, when earlier attempts failed on infrastructure (--retry-errors).",
  );

/** A run's estimated cost, as the init line, `summary.json` and `report.json` write it. */
export const CostUsdJsonSchema = z
  .number()
  .nonnegative()
  .nullable()
  .describe("Estimated cost in US dollars; null when the model has no known price.");

/** An attempt at a trial that failed on infrastructure and was run again (`--retry-errors`). */
export const EarlierAttemptJsonSchema = z.object({
  status: z.string().min(1),
  error_kind: z.string().nullable(),
  error: z.string().nullable(),
  total_tokens: z.number().int().nonnegative(),
  cost_usd: CostUsdJsonSchema,
});

/** Which of a task's trials a run is (`--trials K`, `trials:`), for a task run more than once. */
export type Trial = { index: number; count: number };

/** An attempt at a trial that failed on infrastructure, before the one that counts. */
export type EarlierAttempt = {
  status: string;
  errorKind: string | null;
  error: string | null;
  totalTokens: number;
  costUsd: number | null;
};

/** Which trial of its task a run is, and which attempt at it after which earlier ones. */
export type TrialOfRun = {
  /** Undefined when the task runs once. */
  trial?: Trial | undefined;
  /** 1 (the default) unless earlier attempts failed on infrastructure (`--retry-errors`). */
  attempt?: number | undefined;
  /** Those earlier attempts, oldest first. */
  earlierAttempts?: readonly EarlierAttempt[] | undefined;
};

/** `trial`, and `attempt` with the `earlier_attempts` when it is not the first: our own fields. */
export function trialFields(run: TrialOfRun) {
  const attempt = run.attempt ?? 1;
  const earlier = run.earlierAttempts ?? [];
  return {
    ...(run.trial === undefined ? {} : { trial: { ...run.trial } }),
    ...(attempt > 1 ? { attempt, earlier_attempts: earlier.map(earlierAttemptJson) } : {}),
  };
}

/** An earlier attempt as the init line and `summary.json` record it. */
export function earlierAttemptJson(attempt: EarlierAttempt) {
  return {
    status: attempt.status,
    error_kind: attempt.errorKind,
    error: attempt.error,
    total_tokens: attempt.totalTokens,
    cost_usd: attempt.costUsd,
  };
}

/** An earlier attempt read back from the init line, `summary.json` or `report.json`. */
export function earlierAttemptOfJson(
  json: z.output<typeof EarlierAttemptJsonSchema>,
): EarlierAttempt {
  return {
    status: json.status,
    errorKind: json.error_kind,
    error: json.error,
    totalTokens: json.total_tokens,
    costUsd: json.cost_usd,
  };
}
