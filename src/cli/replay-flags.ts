import { ConfigError } from "../errors.js";
import type { Limits } from "../task/schema.js";
import type { CommandSpec } from "./command-spec.js";
import { COMMON_EXIT_ROWS, EXIT } from "./exit-codes.js";
import { durationFlag, positiveIntFlag, pricesFileFlag, stringFlag } from "./flag-values.js";

/** `agent-run replay`'s output folder when `--out` is not given. */
export const DEFAULT_REPLAY_OUT_DIR = "agent-run-replays";

const LIMIT_FLAGS = {
  "max-steps": { type: "string", describe: "Raise or lower limits.max_steps" },
  "max-tokens": { type: "string", describe: "Raise or lower limits.max_tokens" },
  timeout: { type: "string", describe: "Replace limits.timeout (e.g. 90s, 10m)" },
} as const;

const COMMON_FLAGS = {
  "allow-changed-workspace": {
    type: "boolean",
    default: false,
    describe: "Replay even if the recorded workspace's files changed since the run",
  },
  offline: {
    type: "boolean",
    default: false,
    describe: "Continue with the task's scripted replies, not the API",
  },
  model: {
    alias: "m",
    type: "string",
    describe: "Model to continue with (default: the recorded one)",
  },
  verbose: {
    alias: "v",
    type: "boolean",
    default: false,
    describe: "Also log the model's text and tool errors",
  },
  prices: { type: "string", describe: "JSON file of model prices to add or override" },
  redact: {
    type: "string",
    describe: "Also hide the values of these environment variables in every output (repeatable)",
  },
} as const;

/** `agent-run replay`. */
export const REPLAY_COMMAND: CommandSpec = {
  command: "replay <transcripts..>",
  describe:
    "Re-run recorded runs offline from their transcripts and report divergences; fork with --until-step K --continue",
  flags: {
    out: {
      alias: "o",
      type: "string",
      default: DEFAULT_REPLAY_OUT_DIR,
      describe: "Folder for the replayed runs",
    },
    task: {
      type: "string",
      describe:
        "Task file to re-grade with (its checks); with --continue also its settings (prompt, model, provider, limits, tools), so a fork can go on on another model or provider",
    },
    strict: {
      type: "boolean",
      default: false,
      describe: "Exit 1 when any tool result differs from the recording",
    },
    "until-step": {
      type: "string",
      describe: "Replay steps 1..K only (with --continue: then go on live)",
    },
    continue: {
      type: "boolean",
      default: false,
      describe: "After --until-step K, continue with a model (a fork)",
    },
    ...COMMON_FLAGS,
    ...LIMIT_FLAGS,
  },
  examples: [
    [
      "$0 replay agent-runs/fix-failing-test/transcript.jsonl",
      "re-run a recorded run offline and compare each tool result with the recording",
    ],
    [
      "$0 replay --strict -o replays agent-runs/add-farewell/transcript.jsonl",
      "exit 1 if a tool result differs from the recording",
    ],
    [
      "$0 replay --until-step 2 --continue --offline agent-runs/fix-failing-test/transcript.jsonl",
      "fork: steps 1-2 from the recording, then the scripted replies (the API without --offline)",
    ],
    [
      "$0 replay --task tasks/fix-failing-test.yaml agent-runs/fix-failing-test/transcript.jsonl",
      "re-grade a recorded run with the task file's current checks",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "every replayed task passed"],
    [[EXIT.taskFailed], "a replayed task did not pass (or, with --strict, a tool result differed)"],
    [[EXIT.usage], "bad usage or input (an unreadable transcript, a changed workspace)"],
    ...COMMON_EXIT_ROWS,
  ],
};

/** `agent-run resume`. */
export const RESUME_COMMAND: CommandSpec = {
  command: "resume <runs..>",
  describe:
    "Continue runs (DIR/<task> folders, or a batch folder DIR) stopped by a limit, a cancellation or a kill",
  flags: {
    "fresh-budget": {
      type: "boolean",
      default: false,
      describe: "Do not count the recorded tokens toward max_tokens",
    },
    ...COMMON_FLAGS,
    ...LIMIT_FLAGS,
  },
  examples: [
    [
      "$0 resume stopped/fix-failing-test --offline --max-steps 12",
      "go on with a run stopped by max_steps, with a higher limit",
    ],
    [
      "$0 resume stopped/fix-failing-test --timeout 20m --fresh-budget",
      "go on against the API, not counting the recorded tokens toward max_tokens",
    ],
    [
      "$0 resume agent-runs --offline",
      "finish an interrupted batch: its finished tasks kept, the others resumed or run",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "every resumed task passed"],
    [[EXIT.taskFailed], "a resumed task did not pass"],
    [[EXIT.usage], "bad usage or input (a completed or --in-place run, a changed workspace)"],
    ...COMMON_EXIT_ROWS,
  ],
};

/** What replay and resume share: the model to go on with, prices, limits, the log. */
export type ReplayCommonArgs = {
  isOffline: boolean;
  model: string | undefined;
  isVerbose: boolean;
  pricesFile: string | undefined;
  isChangedWorkspaceAllowed: boolean;
  limits: Partial<Limits>;
};

/** What `agent-run replay` was asked to do, validated. */
export type ReplayArgs = ReplayCommonArgs & {
  transcripts: string[];
  outDir: string;
  taskFile: string | undefined;
  isStrict: boolean;
  untilStep: number | undefined;
  isContinued: boolean;
};

/** What `agent-run resume` was asked to do, validated. */
export type ResumeArgs = ReplayCommonArgs & { folders: string[]; isFreshBudget: boolean };

/** Validates the raw yargs values of `agent-run replay`. */
export function parseReplayArgs(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ReplayArgs {
  const common = parseCommon(raw, env);
  const transcripts = Array.isArray(raw.transcripts) ? raw.transcripts.map(String) : [];
  const untilStep = positiveIntFlag("--until-step", raw["until-step"]);
  const isContinued = raw.continue === true;
  if (isContinued && untilStep === undefined) {
    throw new ConfigError(
      "--continue needs --until-step K: the step after which the new model takes over",
    );
  }
  if (!isContinued && (common.model !== undefined || common.isOffline)) {
    throw new ConfigError(
      "--model and --offline choose the model a fork continues with; use them with --until-step K --continue",
    );
  }
  const taskFile = stringFlag(raw.task);
  if (taskFile !== undefined && transcripts.length > 1)
    throw new ConfigError("--task goes with one recorded run at a time");
  return {
    ...common,
    transcripts,
    outDir: stringFlag(raw.out) ?? DEFAULT_REPLAY_OUT_DIR,
    taskFile,
    isStrict: raw.strict === true,
    untilStep,
    isContinued,
  };
}

/** Validates the raw yargs values of `agent-run resume`. */
export function parseResumeArgs(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ResumeArgs {
  const folders = Array.isArray(raw.runs) ? raw.runs.map(String) : [];
  return { ...parseCommon(raw, env), folders, isFreshBudget: raw["fresh-budget"] === true };
}

function parseCommon(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ReplayCommonArgs {
  const maxSteps = positiveIntFlag("--max-steps", raw["max-steps"]);
  const maxTokens = positiveIntFlag("--max-tokens", raw["max-tokens"]);
  const timeoutMs = durationFlag("--timeout", raw.timeout);
  return {
    isOffline: raw.offline === true,
    model: stringFlag(raw.model),
    isVerbose: raw.verbose === true,
    pricesFile: pricesFileFlag(raw, env),
    isChangedWorkspaceAllowed: raw["allow-changed-workspace"] === true,
    limits: {
      ...(maxSteps === undefined ? {} : { maxSteps }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
  };
}
