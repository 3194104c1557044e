import { ConfigError } from "../errors.js";
import { parseDuration } from "../task/schema.js";
import { parseShard, type Shard } from "./shard.js";

/** What `agent-run run` was asked to do, validated. */
export type RunOptions = {
  patterns: string[];
  outDir: string;
  model: string | undefined;
  maxSteps: number | undefined;
  maxTokens: number | undefined;
  timeoutMs: number | undefined;
  concurrency: number;
  isInPlace: boolean;
  isOffline: boolean;
  isVerbose: boolean;
  pricesFile: string | undefined;
  maxCostUsd: number | undefined;
  budgetUsd: number | undefined;
  budgetTokens: number | undefined;
  shard: Shard | undefined;
  sandbox: "none" | "bwrap" | undefined;
  /** Added to every task's bash.allow / bash.deny. */
  bashAllow: string[];
  bashDeny: string[];
};

export const DEFAULT_OUT_DIR = "agent-runs";
export const DEFAULT_CONCURRENCY = 4;

/** The run command's flags, as a table yargs reads (descriptions show in `--help`). */
export const RUN_FLAGS = {
  out: {
    alias: "o",
    type: "string",
    default: DEFAULT_OUT_DIR,
    describe: "Folder for the run outputs (one sub-folder per task)",
  },
  model: {
    alias: "m",
    type: "string",
    describe: "Model id for every task (else the task's, then ANTHROPIC_MODEL)",
  },
  "max-steps": { type: "string", describe: "Override every task's limits.max_steps (model calls)" },
  "max-tokens": {
    type: "string",
    describe: "Override every task's limits.max_tokens (total tokens)",
  },
  timeout: { type: "string", describe: "Override every task's limits.timeout (e.g. 90s, 10m)" },
  concurrency: {
    alias: "j",
    type: "string",
    default: String(DEFAULT_CONCURRENCY),
    describe: "Tasks run at once",
  },
  "in-place": {
    type: "boolean",
    default: false,
    describe: "Work on the task's workspace itself instead of a copy",
  },
  offline: {
    type: "boolean",
    default: false,
    describe: "Play each task's scripted replies instead of calling the API",
  },
  verbose: {
    alias: "v",
    type: "boolean",
    default: false,
    describe: "Also log the model's text and tool errors",
  },
  prices: {
    type: "string",
    describe: "JSON file of model prices (USD per million tokens) to add or override",
  },
  "max-cost": { type: "string", describe: "Override every task's limits.max_cost_usd (USD)" },
  "budget-usd": {
    type: "string",
    describe:
      "Cap the whole batch's spend in USD: then no task starts, running tasks stop (status budget)",
  },
  "budget-tokens": { type: "string", describe: "Cap the whole batch's tokens, like --budget-usd" },
  "bash-allow": {
    type: "string",
    describe: "Add a command pattern to every task's bash.allow (repeatable; e.g. 'npm *')",
  },
  "bash-deny": {
    type: "string",
    describe: "Add a command pattern to every task's bash.deny (repeatable; e.g. '*git push*')",
  },
  sandbox: {
    type: "string",
    choices: ["none", "bwrap"],
    describe:
      "Run bash commands under bubblewrap (bwrap) or not, for every task (overrides the task's sandbox)",
  },
  redact: {
    type: "string",
    describe: "Also hide the values of these environment variables in every output (repeatable)",
  },
  shard: {
    type: "string",
    describe: "Run only part I of N of the tasks (I/N, e.g. 2/3), the same on every machine",
  },
} as const;

/** Validates the raw flag values; problems are `ConfigError`s naming the flag and the fix. */
export function parseRunOptions(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): RunOptions {
  const patterns = Array.isArray(raw.tasks) ? raw.tasks.map(String) : [];
  if (patterns.length === 0)
    throw new ConfigError("no task files given; usage: agent-run [run] <task files or globs...>");
  return {
    patterns,
    outDir: stringFlag(raw.out) ?? DEFAULT_OUT_DIR,
    model: stringFlag(raw.model),
    maxSteps: atMost("--max-steps", positiveIntFlag("--max-steps", raw["max-steps"]), 100_000),
    maxTokens: atMost(
      "--max-tokens",
      positiveIntFlag("--max-tokens", raw["max-tokens"]),
      10_000_000_000,
    ),
    timeoutMs: atMost("--timeout", durationFlag("--timeout", raw.timeout), 7 * 24 * 3_600_000),
    concurrency: positiveIntFlag("--concurrency", raw.concurrency) ?? DEFAULT_CONCURRENCY,
    isInPlace: raw["in-place"] === true,
    isOffline: raw.offline === true,
    isVerbose: raw.verbose === true,
    pricesFile: stringFlag(raw.prices) ?? nonEmpty(env.AGENT_RUN_PRICES),
    maxCostUsd: usdFlag("--max-cost", raw["max-cost"]),
    budgetUsd: usdFlag("--budget-usd", raw["budget-usd"]),
    budgetTokens: positiveIntFlag("--budget-tokens", raw["budget-tokens"]),
    shard: mapDefined(stringFlag(raw.shard), parseShard),
    sandbox: raw.sandbox === "bwrap" || raw.sandbox === "none" ? raw.sandbox : undefined,
    bashAllow: stringList(raw["bash-allow"]),
    bashDeny: stringList(raw["bash-deny"]),
  };
}

/** A non-blank string flag value, else undefined. */
export function stringFlag(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The value, unless it is missing or blank (an empty env var counts as unset). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A positive integer flag (yargs gives strings); a `ConfigError` naming the flag otherwise. */
export function positiveIntFlag(flag: string, value: unknown): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const number = Number(text);
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new ConfigError(`${flag}: expected a positive integer, got ${JSON.stringify(text)}`);
  }
  return number;
}

function stringList(value: unknown): string[] {
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map(String).filter((item) => item.trim() !== "");
}

/** The same ceilings task files have: a value past them is almost certainly a mistake. */
function atMost(flag: string, value: number | undefined, max: number): number | undefined {
  if (value !== undefined && value > max) {
    throw new ConfigError(
      `${flag}: at most ${max.toLocaleString("en-US")}${flag === "--timeout" ? " ms (7 days)" : ""}, got ${value}`,
    );
  }
  return value;
}

/** A positive amount of US dollars (`0.5`). */
export function usdFlag(flag: string, value: unknown): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const amount = Number(text.replace(/^\$/, ""));
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new ConfigError(
      `${flag}: expected a positive amount of US dollars such as 0.5, got ${JSON.stringify(text)}`,
    );
  }
  return amount;
}

function mapDefined<T, R>(value: T | undefined, map: (value: T) => R): R | undefined {
  return value === undefined ? undefined : map(value);
}

/** A duration flag (`90s`, `10m`, or seconds); a `ConfigError` naming the flag otherwise. */
export function durationFlag(flag: string, value: unknown): number | undefined {
  const text = stringFlag(value);
  if (text === undefined) return undefined;
  const ms = parseDuration(/^\d+(\.\d+)?$/.test(text) ? Number(text) : text);
  if (ms === null)
    throw new ConfigError(
      `${flag}: expected a duration such as 90s, 10m or 1h, got ${JSON.stringify(text)}`,
    );
  return ms;
}
