import { ConfigError } from "../errors.js";
import type { CommandSpec } from "./command-spec.js";
import { EXIT, INTERNAL_EXIT_ROW } from "./exit-codes.js";
import { listFlag, stringFlag } from "./flag-values.js";

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
      /** `--regression-task`: tasks whose significant drop alone fails `--fail-on-regression`. */
      regressionTasks: string[];
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
        "With --compare: exit 1 when the mean pass rate's 95% interval lies wholly below zero, or a task named with --regression-task regressed significantly",
    },
    "regression-task": {
      type: "string",
      describe:
        "With --fail-on-regression: also exit 1 when this task's drop alone is significant (Fisher's exact test); repeatable, or a,b",
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
      "$0 report --compare --allow-different stopped agent-runs",
      "verdicts per task and the mean's change, though the batches' tasks and limits differ",
    ],
    [
      "$0 report --compare --fail-on-regression last-night agent-runs",
      "exit 1 when the mean pass rate fell significantly (a CI gate)",
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
      regressionTasks: regressionTasksFlag(raw),
    };
  }
  for (const flag of ["fail-on-regression", "allow-different", "regression-task"]) {
    if (raw[flag] !== undefined && raw[flag] !== false) {
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

/** `--regression-task a --regression-task b,c`: only with `--fail-on-regression`, which it sharpens. */
function regressionTasksFlag(raw: Record<string, unknown>): string[] {
  const names = listFlag(raw["regression-task"]);
  if (names.length > 0 && raw["fail-on-regression"] !== true) {
    throw new ConfigError(
      "--regression-task names tasks for --fail-on-regression; give it too: agent-run report --compare BASE NEW --fail-on-regression --regression-task NAME",
    );
  }
  return names;
}
