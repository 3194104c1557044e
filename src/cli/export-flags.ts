import { ConfigError } from "../errors.js";
import type { CommandSpec } from "./command-spec.js";
import { EXIT, INTERNAL_EXIT_ROW } from "./exit-codes.js";
import { pricesFileFlag, stringFlag } from "./flag-values.js";

/** What `agent-run export` was asked to write, validated: one of the files, or both. */
export type ExportArgs = {
  patterns: string[];
  /** `--swebench FILE`: SWE-bench's predictions file (`.jsonl`). */
  swebenchFile: string | undefined;
  /** `--atif DIR`: one ATIF trajectory per run. */
  atifDir: string | undefined;
  /** `--model-name`: every prediction's `model_name_or_path`, instead of the run's model. */
  modelName: string | undefined;
  pricesFile: string | undefined;
};

/** `agent-run export`. */
export const EXPORT_COMMAND: CommandSpec = {
  command: "export [runs..]",
  describe: "Write run folders as SWE-bench predictions or ATIF trajectories (Harbor's format)",
  positionals: {
    runs: {
      type: "string",
      array: true,
      describe: "Batch or task output folders, or globs of them (e.g. 'shards/*')",
    },
  },
  flags: {
    swebench: {
      type: "string",
      describe:
        "Write SWE-bench's predictions file FILE (.jsonl): one line per run, its changes.patch as model_patch, the task's instance_id",
    },
    atif: {
      type: "string",
      describe: "Write each run as an ATIF v1.7 trajectory, DIR/<task>.json",
    },
    "model-name": {
      type: "string",
      describe: "With --swebench: every prediction's model_name_or_path (default: the run's model)",
    },
    prices: {
      type: "string",
      describe: "JSON file of model prices to add or override (the steps' cost_usd in ATIF)",
    },
    redact: {
      type: "string",
      describe: "Also hide the values of these environment variables in every output (repeatable)",
    },
  },
  examples: [
    ["$0 export --swebench preds.jsonl agent-runs", "SWE-bench predictions of a batch"],
    ["$0 export --atif trajectories agent-runs", "one ATIF trajectory per run"],
    [
      "$0 export --swebench preds.jsonl --model-name my-agent 'shard-*'",
      "merge the shards' predictions under one model name",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "every run was exported"],
    [[EXIT.usage], "bad input, nothing written (an edited transcript, one instance twice...)"],
    INTERNAL_EXIT_ROW,
    [[EXIT.sighup, EXIT.sigint, EXIT.sigterm], "interrupted (SIGHUP/SIGINT/SIGTERM)"],
  ],
};

/** Validates the raw yargs values of `agent-run export`. */
export function parseExportArgs(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ExportArgs {
  const patterns = Array.isArray(raw.runs) ? raw.runs.map(String) : [];
  const swebenchFile = stringFlag(raw.swebench);
  const atifDir = stringFlag(raw.atif);
  const modelName = stringFlag(raw["model-name"]);
  if (swebenchFile === undefined && atifDir === undefined) {
    throw new ConfigError(
      "nothing to write; usage: agent-run export --swebench FILE.jsonl | --atif DIR <run folders or globs...>",
    );
  }
  if (patterns.length === 0) {
    throw new ConfigError(
      "no run folders given; usage: agent-run export <run folders or globs...>",
    );
  }
  // The harness reads a `.json` file as one JSON document, and refuses any other name.
  if (swebenchFile !== undefined && !swebenchFile.endsWith(".jsonl")) {
    throw new ConfigError(
      `--swebench ${swebenchFile}: name the file *.jsonl; SWE-bench's harness reads a .jsonl file line by line and refuses other names`,
    );
  }
  if (modelName !== undefined && swebenchFile === undefined) {
    throw new ConfigError(
      "--model-name names the predictions' model; give it with --swebench FILE",
    );
  }
  return {
    patterns,
    swebenchFile,
    atifDir,
    modelName,
    pricesFile: pricesFileFlag(raw, env),
  };
}
