import { ConfigError } from "../errors.js";
import type { CommandSpec } from "./command-spec.js";
import { EXIT, INTERNAL_EXIT_ROW } from "./exit-codes.js";
import { stringFlag } from "./flag-values.js";

/** What `agent-run report` was asked to do, validated. */
export type ReportArgs =
  | {
      mode: "report";
      patterns: string[];
      jsonFile: string | undefined;
      junitFile: string | undefined;
      /** `--junit-file-line`: `file` and `line` on each testcase (outside both JUnit schemas). */
      hasJunitFileLine: boolean;
    }
  | {
      mode: "compare";
      base: string;
      next: string;
      /** `--json FILE`: also write the comparison as JSON. */
      jsonFile: string | undefined;
      /** `--allow-different`: compare batches whose task sets, limits or prices differ. */
      isDifferentAllowed: boolean;
      /** `--fail-on-regression`: exit 1 when the comparison finds a regression. */
      isRegressionFailed: boolean;
    };

/** `agent-run report`. */
export const REPORT_COMMAND: CommandSpec = {
  command: "report [runs..]",
  describe: "Aggregate run folders into a Markdown table, report.json or JUnit XML",
  positionals: {
    runs: {
      type: "string",
      array: true,
      describe: "Batch or task output folders, or globs of them (e.g. 'shards/*')",
    },
  },
  flags: {
    json: {
      type: "string",
      describe: "Also write the report (with --compare, the comparison) as JSON to FILE",
    },
    junit: { type: "string", describe: "Also write the report as JUnit XML to FILE" },
    "junit-file-line": {
      type: "boolean",
      default: false,
      describe:
        "Add file and line attributes to each JUnit testcase (the task file, the failed check's line), for consumers that read them; the file then no longer validates against Surefire's or Jenkins' schema",
    },
    compare: {
      type: "boolean",
      default: false,
      describe:
        "Compare two batches: BASE NEW, each a batch folder, a task folder or a report.json; per task on pass rates over trials (Fisher's exact test), the mean with a bootstrap interval",
    },
    "fail-on-regression": {
      type: "boolean",
      default: false,
      describe:
        "With --compare: exit 1 when the mean pass rate's 95% interval lies wholly below zero, or a task regressed significantly",
    },
    "allow-different": {
      type: "boolean",
      default: false,
      describe:
        "With --compare: compare batches whose task sets, limits or prices differ (refused otherwise, exit 2)",
    },
  },
  examples: [
    ["$0 report agent-runs --junit junit.xml", "table on stdout, JUnit file for CI"],
    ["$0 report 'shard-*' --json report.json", "merge the shards of a sharded batch"],
    [
      "$0 report --compare stopped agent-runs",
      "regressed, flaky and flipped tasks, and the deltas",
    ],
    [
      "$0 report --compare --fail-on-regression base agent-runs",
      "exit 1 on a significant drop (CI)",
    ],
  ],
  exitCodes: [
    [[EXIT.ok], "every run was read, whether its tasks passed or not"],
    [[EXIT.taskFailed], "--compare --fail-on-regression: the comparison found a regression"],
    [
      [EXIT.usage],
      "bad input (a missing folder, no runs, a bad summary.json, a task found twice); --compare: batches whose task sets, limits or prices differ, without --allow-different",
    ],
    INTERNAL_EXIT_ROW,
    [[EXIT.sighup, EXIT.sigint, EXIT.sigterm], "interrupted (SIGHUP/SIGINT/SIGTERM)"],
  ],
};

/** Validates the raw yargs values of `agent-run report`. */
export function parseReportArgs(raw: Record<string, unknown>): ReportArgs {
  const paths = Array.isArray(raw.runs) ? raw.runs.map(String) : [];
  const jsonFile = stringFlag(raw.json);
  const junitFile = stringFlag(raw.junit);
  const hasJunitFileLine = raw["junit-file-line"] === true;
  if (raw.compare === true) {
    const [base, next] = paths;
    if (paths.length !== 2 || base === undefined || next === undefined) {
      throw new ConfigError(
        `--compare takes two reports, BASE and NEW, got ${paths.length}; usage: agent-run report --compare BASE NEW`,
      );
    }
    if (junitFile !== undefined || hasJunitFileLine) {
      throw new ConfigError("--junit writes a report, not a comparison; drop it with --compare");
    }
    return {
      mode: "compare",
      base,
      next,
      jsonFile,
      isDifferentAllowed: raw["allow-different"] === true,
      isRegressionFailed: raw["fail-on-regression"] === true,
    };
  }
  for (const flag of ["fail-on-regression", "allow-different"]) {
    if (raw[flag] === true) {
      throw new ConfigError(
        `--${flag} goes with --compare: agent-run report --compare BASE NEW --${flag}`,
      );
    }
  }
  if (paths.length === 0) {
    throw new ConfigError(
      "no run folders given; usage: agent-run report <run folders or globs...>",
    );
  }
  if (hasJunitFileLine && junitFile === undefined) {
    throw new ConfigError("--junit-file-line shapes the JUnit file; give it with --junit FILE");
  }
  return { mode: "report", patterns: paths, jsonFile, junitFile, hasJunitFileLine };
}
