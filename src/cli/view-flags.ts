import { ConfigError } from "../errors.js";
import { VIEW_FILE } from "../view/view-file.js";
import type { CommandSpec } from "./command-spec.js";
import { EXIT, INTERNAL_EXIT_ROW } from "./exit-codes.js";
import { stringFlag } from "./flag-values.js";

/** What `agent-run view` was asked to do, validated. */
export type ViewArgs = { outFile: string } & (
  | { mode: "batch"; patterns: string[] }
  | { mode: "compare"; base: string; next: string }
);

/** `agent-run view`. */
export const VIEW_COMMAND: CommandSpec = {
  command: "view [runs..]",
  describe: "Write one self-contained HTML file to browse runs: tasks, timelines, diffs, checks",
  positionals: {
    runs: {
      type: "string",
      array: true,
      describe: "Batch or task output folders, or globs of them (replays' folders too)",
    },
  },
  flags: {
    out: {
      alias: "o",
      type: "string",
      default: VIEW_FILE,
      describe: "The HTML file to write",
    },
    compare: {
      type: "boolean",
      default: false,
      describe: "Compare two batches: BASE NEW, each a batch folder or a task folder",
    },
    redact: {
      type: "string",
      describe: "Also hide the values of these environment variables in the page (repeatable)",
    },
  },
  examples: [
    [
      "$0 view agent-runs -o view.html",
      "one HTML file of the batch; open it in a browser, offline",
    ],
    [
      "$0 view --compare stopped agent-runs -o compare.html",
      "both batches: statuses, flips, deltas",
    ],
    ["$0 view agent-run-replays -o replays.html", "replays, marked where they diverged"],
  ],
  exitCodes: [
    [[EXIT.ok], "the file was written, whether the tasks passed or not"],
    [
      [EXIT.usage],
      "bad input (a missing folder, no runs, a bad summary.json, a task found twice, -o unwritable)",
    ],
    INTERNAL_EXIT_ROW,
    [[EXIT.sighup, EXIT.sigint, EXIT.sigterm], "interrupted (SIGHUP/SIGINT/SIGTERM)"],
  ],
};

/** Validates the raw yargs values of `agent-run view`. */
export function parseViewArgs(raw: Record<string, unknown>): ViewArgs {
  const paths = Array.isArray(raw.runs) ? raw.runs.map(String) : [];
  const outFile = stringFlag(raw.out) ?? VIEW_FILE;
  if (raw.compare === true) {
    const [base, next] = paths;
    if (paths.length !== 2 || base === undefined || next === undefined) {
      throw new ConfigError(
        `--compare takes two batches, BASE and NEW, got ${paths.length}; usage: agent-run view --compare BASE NEW`,
      );
    }
    return { mode: "compare", base, next, outFile };
  }
  if (paths.length === 0) {
    throw new ConfigError("no run folders given; usage: agent-run view <run folders or globs...>");
  }
  return { mode: "batch", patterns: paths, outFile };
}
