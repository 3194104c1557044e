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
  | { mode: "compare"; base: string; next: string };

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
    json: { type: "string", describe: "Also write the report as JSON to FILE (report.json)" },
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
        "Compare two batches: BASE NEW, each a batch folder, a task folder or a report.json",
    },
  },
  examples: [
    ["$0 report agent-runs --junit junit.xml", "table on stdout, JUnit file for CI"],
    ["$0 report 'shard-*' --json report.json", "merge the shards of a sharded batch"],
    ["$0 report --compare stopped agent-runs", "pass → fail, fail → pass and deltas"],
  ],
  exitCodes: [
    [[EXIT.ok], "every run was read, whether its tasks passed or not"],
    [[EXIT.usage], "bad input (a missing folder, no runs, a bad summary.json, a task found twice)"],
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
    if (jsonFile !== undefined || junitFile !== undefined || hasJunitFileLine) {
      throw new ConfigError(
        "--json and --junit write a report, not a comparison; drop them with --compare",
      );
    }
    return { mode: "compare", base, next };
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
