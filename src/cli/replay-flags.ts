/** `agent-run replay` and `resume` flags, as tables yargs reads (kept apart so `--help` loads no command). */

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

/** `agent-run replay`'s flags. */
export const REPLAY_FLAGS = {
  out: {
    alias: "o",
    type: "string",
    default: DEFAULT_REPLAY_OUT_DIR,
    describe: "Folder for the replayed runs",
  },
  task: {
    type: "string",
    describe:
      "Task file to re-grade with (its checks); with --continue also its settings (prompt, model, limits, tools)",
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
} as const;

/** `agent-run resume`'s flags. */
export const RESUME_FLAGS = {
  "fresh-budget": {
    type: "boolean",
    default: false,
    describe: "Do not count the recorded tokens toward max_tokens",
  },
  ...COMMON_FLAGS,
  ...LIMIT_FLAGS,
} as const;
