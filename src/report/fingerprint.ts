import { z } from "zod";
import { findPrice, type Price, type PriceTable } from "../model/pricing.js";
import type { Task } from "../task/schema.js";
import { AGENT_RUN_VERSION } from "../version.js";

// A run's fingerprint: what must match for two batches' pass rates to be compared fairly. Each
// run records it in `summary.json`; `report.json` gives each task the one of its runs; `report
// --compare` lists every difference and refuses the ones that make a comparison unfair.

const count = z.number().int().nonnegative();
const usdPerMTok = z.number().nonnegative().max(1_000_000);

/** A SHA-256 digest in lowercase hex, as task files are hashed. */
export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/** The limits a run ran under, flat (the task's, after the command line's overrides). */
const LimitsJsonSchema = z
  .object({
    max_steps: count,
    max_tokens: count,
    max_output_tokens: count,
    max_context_tokens: count,
    timeout_ms: count,
    max_cost_usd: z.number().nonnegative().nullable(),
    max_repeated_calls: count,
    subagent_max_steps: count,
    subagent_max_depth: count,
  })
  .describe("The limits the run ran under: the task's, after the command line's overrides.");

/** One run's fingerprint, as `summary.json` records it. */
export const RunFingerprintJsonSchema = z
  .object({
    task_sha256: Sha256Schema.nullable().describe(
      "SHA-256 of the task file's text; null for a run rebuilt from a transcript that did not record it.",
    ),
    limits: LimitsJsonSchema,
    price: z
      .object({
        input: usdPerMTok,
        output: usdPerMTok,
        cache_write: usdPerMTok,
        cache_read: usdPerMTok,
      })
      .nullable()
      .describe(
        "USD per million tokens the run's model was priced at (the price table, with --prices); null: no price known.",
      ),
    tool_protocol: z.enum(["native", "text"]),
    agent_run_version: z.string().min(1).max(100),
  })
  .describe(
    "What must match for runs to be compared fairly (report --compare): the task file, limits, price, tool protocol and agent-run version.",
  );

export type RunFingerprintJson = z.infer<typeof RunFingerprintJsonSchema>;

/** The fields of a fingerprint, in the order differences are listed. */
export const FINGERPRINT_FIELDS = [
  "model",
  "task_sha256",
  "limits",
  "price",
  "tool_protocol",
  "agent_run_version",
] as const;

export type FingerprintField = (typeof FINGERPRINT_FIELDS)[number];

/** A task's fingerprint in `report.json`: its runs', and the fields in which its runs differ. */
export const TaskFingerprintJsonSchema = RunFingerprintJsonSchema.extend({
  model: z.string(),
  mixed: z
    .array(z.enum(FINGERPRINT_FIELDS))
    .describe(
      "Fields in which the task's runs differ (a merge of shards run apart); the other fields are its first trial's.",
    ),
})
  .nullable()
  .describe(
    "What must match for the task's pass rate to be compared with another batch's (report --compare); null when a run of it recorded none (a summary.json written before fingerprints, or a run killed before its summary).",
  );

export type TaskFingerprint = NonNullable<z.infer<typeof TaskFingerprintJsonSchema>>;

/** The fingerprint of a run of `task` on `model`, priced with `prices`. */
export function runFingerprint(task: Task, model: string, prices: PriceTable): RunFingerprintJson {
  const { limits, subagents } = task;
  const price = findPrice(prices, { provider: task.provider.name, model });
  return {
    task_sha256: task.fileSha256 ?? null,
    limits: {
      max_steps: limits.maxSteps,
      max_tokens: limits.maxTokens,
      max_output_tokens: limits.maxOutputTokens,
      max_context_tokens: limits.maxContextTokens,
      timeout_ms: limits.timeoutMs,
      max_cost_usd: limits.maxCostUsd ?? null,
      max_repeated_calls: limits.maxRepeatedCalls,
      subagent_max_steps: subagents.maxSteps,
      subagent_max_depth: subagents.maxDepth,
    },
    price: price === undefined ? null : priceJson(price),
    tool_protocol: task.toolProtocol,
    agent_run_version: AGENT_RUN_VERSION,
  };
}

function priceJson(price: Price): NonNullable<RunFingerprintJson["price"]> {
  return {
    input: price.input,
    output: price.output,
    cache_write: price.cacheWrite,
    cache_read: price.cacheRead,
  };
}

/**
 * A task's fingerprint from its runs (by trial): the first's, with the fields the others differ
 * in; null when any run has none.
 */
export function taskFingerprint(
  runs: readonly { model: string; fingerprint: RunFingerprintJson | null }[],
): TaskFingerprint | null {
  const all = runs.map((run) =>
    run.fingerprint === null ? null : { ...run.fingerprint, model: run.model },
  );
  const [first] = all;
  if (first === undefined || first === null || all.includes(null)) return null;
  const mixed = FINGERPRINT_FIELDS.filter((field) =>
    all.some((other) => !sameValue(other?.[field], first[field])),
  );
  return { ...first, mixed };
}

/** Equal as JSON values (fingerprints hold only JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
