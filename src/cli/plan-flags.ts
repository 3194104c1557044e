import type { CommandSpec } from "./command-spec.js";
import { EXIT, INTERNAL_EXIT_ROW } from "./exit-codes.js";
import { FORECAST_FLAGS, parseRunOptions, type RunOptions, TASK_FLAGS } from "./run-flags.js";

// `plan` and `list` take run's flags, so that the command line of a run, with `plan` or `list` in
// front, forecasts or lists that run's tasks (flags that only shape a run, such as --out, are
// accepted and have no effect).

/** `agent-run plan`: the forecast of a batch, run nothing. */
export const PLAN_COMMAND: CommandSpec = {
  command: "plan <tasks..>",
  describe: "Validate a batch and print its worst-case and expected spend, run nothing",
  flags: { ...TASK_FLAGS, ...FORECAST_FLAGS },
  examples: [
    ["$0 plan 'tasks/*.yaml'", "each task's worst case: its limits at its model's prices"],
    [
      "$0 plan 'tasks/*.yaml' --history agent-runs/report.json",
      "and the spend and time its earlier runs let one expect",
    ],
    [
      "$0 plan 'tasks/*.yaml' --budget-usd 5 --refuse-over-budget",
      "exit 2 when the worst case exceeds $5 (the check run does with the same flags)",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "the forecast was printed (and fits the budget, with --refuse-over-budget)"],
    [
      [EXIT.usage],
      "bad usage or input (a flag, a task file, a report), or the worst case over budget with --refuse-over-budget",
    ],
    INTERNAL_EXIT_ROW,
  ],
};

/** `agent-run list`: the batch's tasks, for CI systems that give each task a job. */
export const LIST_COMMAND: CommandSpec = {
  command: "list <tasks..>",
  describe: "Validate a batch and list its tasks (--json: for GitHub matrices, Argo withParam)",
  flags: {
    ...TASK_FLAGS,
    json: {
      type: "boolean",
      default: false,
      describe:
        "Print a JSON array on one line: name, file, model, provider and limits of each task",
    },
  },
  examples: [
    ["$0 list 'tasks/*.yaml'", "a table of the tasks, their files and models"],
    ["$0 list --json --shard 1/2 'tasks/*.yaml'", "the first half of them, as JSON"],
  ],
  exitCodes: [
    [[EXIT.ok], "the tasks were listed"],
    [[EXIT.usage], "bad usage or input (a flag, a task file, a glob matching nothing)"],
    INTERNAL_EXIT_ROW,
  ],
};

/** `plan`'s options: run's, as `run --dry-run` takes them. */
export function parsePlanOptions(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): RunOptions {
  return parseRunOptions({ ...raw, "dry-run": true }, env);
}

/** What `agent-run list` was asked to do, validated. */
export type ListArgs = { options: RunOptions; isJson: boolean };

/** Validates the raw yargs values of `agent-run list`. */
export function parseListArgs(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ListArgs {
  return { options: parseRunOptions(raw, env), isJson: raw.json === true };
}
