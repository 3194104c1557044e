import { type ResolvedShard, SHARD_COUNT_VARIABLE } from "../batch/shard.js";
import { ConfigError } from "../errors.js";
import { PROVIDER_NAMES, type ProviderName } from "../model/providers.js";
import { MAX_TRIALS } from "../task/schema-fields.js";
import type { CommandSpec } from "./command-spec.js";
import { COMMON_EXIT_ROWS, EXIT } from "./exit-codes.js";
import {
  countFlag,
  durationFlag,
  patternListFlag,
  positiveIntFlag,
  pricesFileFlag,
  stringFlag,
  usdFlag,
} from "./flag-values.js";
import { baseUrlFlag, providerFlag } from "./provider-flags.js";
import { shardFlag } from "./shard-flag.js";

/** What `agent-run run` was asked to do, validated. */
export type RunOptions = {
  patterns: string[];
  outDir: string;
  model: string | undefined;
  /** `--provider`: every task's preset (a different one replaces the task's provider section). */
  provider: ProviderName | undefined;
  /** `--base-url`: every task's base URL. */
  baseURL: string | undefined;
  maxSteps: number | undefined;
  maxTokens: number | undefined;
  timeoutMs: number | undefined;
  concurrency: number;
  isInPlace: boolean;
  /** With --in-place, an --out inside the workspace is allowed (it is refused otherwise). */
  isOutInWorkspaceAllowed: boolean;
  isOffline: boolean;
  isVerbose: boolean;
  /** `--view`: write the viewer (`view.html`) in the output folder at the end. */
  hasView: boolean;
  pricesFile: string | undefined;
  maxCostUsd: number | undefined;
  budgetUsd: number | undefined;
  budgetTokens: number | undefined;
  shard: ResolvedShard | undefined;
  sandbox: "none" | "bwrap" | undefined;
  /** Added to every task's bash.allow / bash.deny. */
  bashAllow: string[];
  bashDeny: string[];
  /** `--dry-run` (and `plan`): validate, print the forecast, run nothing. */
  isDryRun: boolean;
  /** `--refuse-over-budget`: exit 2 before anything runs when the worst case exceeds a budget. */
  isOverBudgetRefused: boolean;
  /** `--history`: earlier `report.json` files (or globs of them), for the expected spend and time. */
  historyPatterns: string[];
  /** `--trials K`: every task's trials (overrides the task's `trials:`). */
  trials: number | undefined;
  /** `--retry-errors N`: how many more times a trial that failed on infrastructure runs. */
  retryErrors: number;
};

/** Most `--retry-errors`: each retry is a whole run, and a failure this persistent is not transient. */
const MAX_RETRY_ERRORS = 10;

export const DEFAULT_OUT_DIR = "agent-runs";
export const DEFAULT_CONCURRENCY = 4;

/** The flags of every command that takes a batch's tasks (`run`, `plan`, `list`). */
export const TASK_FLAGS = {
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
  provider: {
    type: "string",
    describe: `Provider preset for every task (${PROVIDER_NAMES.join(", ")}); overrides the task's provider section`,
  },
  "base-url": {
    type: "string",
    describe: "Base URL of the model API for every task (overrides provider.base_url)",
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
  "allow-out-in-workspace": {
    type: "boolean",
    default: false,
    describe:
      "With --in-place, allow an --out inside the workspace (the file tools and the sandbox still keep the agent out of it)",
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
  view: {
    type: "boolean",
    default: false,
    describe:
      "At the end, also write view.html in the output folder: the run viewer, one HTML file",
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
    describe:
      "Run only part I of N of the tasks (I/N, e.g. 2/3), the same on every machine; auto: the part a Kubernetes Indexed Job, Buildkite or CircleCI gives (JOB_COMPLETION_INDEX, BUILDKITE_PARALLEL_JOB, CIRCLE_NODE_INDEX)",
  },
  "shard-count": {
    type: "string",
    describe: `With --shard auto and JOB_COMPLETION_INDEX: the number of shards (the Job's completions; else ${SHARD_COUNT_VARIABLE})`,
  },
  trials: {
    type: "string",
    describe: `Run every task K times, each trial into OUT/<task>/trial-<n>/ (overrides the task's trials; at most ${MAX_TRIALS}); the report gives pass rates, pass@k and pass^k`,
  },
  "retry-errors": {
    type: "string",
    describe: `Run a trial again, up to N more times, when it ended in error on infrastructure (the model API after its retries, the workspace); every attempt is kept (at most ${MAX_RETRY_ERRORS})`,
  },
} as const;

/** The flags of the commands that forecast a batch (`plan`, `run --dry-run`). */
export const FORECAST_FLAGS = {
  history: {
    type: "string",
    describe:
      "An earlier report.json, a batch folder holding one, or a quoted glob (repeatable): the forecast adds each task's expected spend and time",
  },
  "refuse-over-budget": {
    type: "boolean",
    default: false,
    describe:
      "Refuse to start (exit 2) when the batch's worst case (its limits at its prices) exceeds --budget-usd or --budget-tokens",
  },
} as const;

/** The run command's flags, as a table yargs reads (descriptions show in `--help`). */
const RUN_FLAGS = {
  ...TASK_FLAGS,
  ...FORECAST_FLAGS,
  "dry-run": {
    type: "boolean",
    default: false,
    describe: "Validate everything and print the forecast (as agent-run plan), run nothing",
  },
} as const;

/** `agent-run run`, also the default command (`agent-run tasks/*.yaml`). */
export const RUN_COMMAND: CommandSpec = {
  command: ["run <tasks..>", "$0 <tasks..>"],
  describe: "Run tasks (the default command)",
  flags: RUN_FLAGS,
  examples: [
    ["$0 'tasks/*.yaml'", "run every task in tasks/ against the API"],
    ["$0 --offline 'tasks/*.yaml'", "play the tasks' scripted replies, no key or network needed"],
    [
      "$0 --offline --max-steps 2 -o stopped tasks/fix-failing-test.yaml",
      "stop a task after 2 steps (exit 1), to resume it later",
    ],
    [
      "$0 -j 2 --budget-usd 1 --shard 1/2 'tasks/*.yaml'",
      "half of the tasks, 2 at a time, stopping when the batch has cost $1",
    ],
    [
      "$0 --offline --trials 3 --retry-errors 2 -o trials tasks/fix-failing-test.yaml",
      "three trials of a task (pass@k, pass^k), each run again twice at most on an API failure",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "every task passed (completed, and its checks passed)"],
    [[EXIT.taskFailed], "a task did not pass (a limit, an error, a failed check, skipped)"],
    [
      [EXIT.usage],
      "bad usage or input (a flag, a task file, a missing key), the worst case over budget with --refuse-over-budget, or the API refused a key",
    ],
    ...COMMON_EXIT_ROWS,
  ],
};

/** Validates the raw flag values; problems are `ConfigError`s naming the flag and the fix. */
export function parseRunOptions(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): RunOptions {
  const patterns = Array.isArray(raw.tasks) ? raw.tasks.map(String) : [];
  if (patterns.length === 0)
    throw new ConfigError("no task files given; usage: agent-run [run] <task files or globs...>");
  const options: RunOptions = {
    patterns,
    outDir: stringFlag(raw.out) ?? DEFAULT_OUT_DIR,
    model: stringFlag(raw.model),
    provider: providerFlag(stringFlag(raw.provider)),
    baseURL: baseUrlFlag(stringFlag(raw["base-url"])),
    maxSteps: positiveIntFlag("--max-steps", raw["max-steps"], 100_000),
    maxTokens: positiveIntFlag("--max-tokens", raw["max-tokens"], 10_000_000_000),
    timeoutMs: durationFlag("--timeout", raw.timeout),
    concurrency: positiveIntFlag("--concurrency", raw.concurrency) ?? DEFAULT_CONCURRENCY,
    isInPlace: raw["in-place"] === true,
    isOutInWorkspaceAllowed: raw["allow-out-in-workspace"] === true,
    isOffline: raw.offline === true,
    isVerbose: raw.verbose === true,
    hasView: raw.view === true,
    pricesFile: pricesFileFlag(raw, env),
    maxCostUsd: usdFlag("--max-cost", raw["max-cost"]),
    budgetUsd: usdFlag("--budget-usd", raw["budget-usd"]),
    budgetTokens: positiveIntFlag("--budget-tokens", raw["budget-tokens"]),
    shard: shardFlag(raw, env),
    sandbox: raw.sandbox === "bwrap" || raw.sandbox === "none" ? raw.sandbox : undefined,
    bashAllow: patternListFlag(raw["bash-allow"]),
    bashDeny: patternListFlag(raw["bash-deny"]),
    isDryRun: raw["dry-run"] === true,
    isOverBudgetRefused: raw["refuse-over-budget"] === true,
    historyPatterns: patternListFlag(raw.history),
    trials: positiveIntFlag("--trials", raw.trials, MAX_TRIALS),
    retryErrors: countFlag("--retry-errors", raw["retry-errors"], MAX_RETRY_ERRORS),
  };
  if (
    options.isOverBudgetRefused &&
    options.budgetUsd === undefined &&
    options.budgetTokens === undefined
  ) {
    throw new ConfigError(
      "--refuse-over-budget compares the worst case with a budget; give --budget-usd USD or --budget-tokens N",
    );
  }
  if (options.historyPatterns.length > 0 && !options.isDryRun) {
    throw new ConfigError(
      "--history is read by the forecast: use it with agent-run plan or --dry-run",
    );
  }
  return options;
}
