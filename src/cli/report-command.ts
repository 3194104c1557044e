import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute } from "node:path";
import { glob } from "tinyglobby";
import type { Argv, CommandModule } from "yargs";
import { ConfigError, messageOf } from "../errors.js";
import { buildReport, type Report } from "../report/aggregate.js";
import { compareReports, formatComparisonMarkdown } from "../report/compare.js";
import { formatJunit } from "../report/junit.js";
import { loadRunSummaries } from "../report/load-runs.js";
import { formatReportMarkdown } from "../report/markdown.js";
import { parseReportJson, reportJson } from "../report/report-json.js";
import type { CliIo } from "./io.js";

/** What `agent-run report` was asked to do, validated. */
export type ReportArgs =
  | {
      mode: "report";
      patterns: string[];
      jsonFile: string | undefined;
      junitFile: string | undefined;
    }
  | { mode: "compare"; base: string; next: string };

/** The report command's flags, as a table yargs reads (descriptions show in `--help`). */
export const REPORT_FLAGS = {
  json: { type: "string", describe: "Also write the report as JSON to FILE (report.json)" },
  junit: { type: "string", describe: "Also write the report as JUnit XML to FILE" },
  compare: {
    type: "boolean",
    default: false,
    describe: "Compare two batches: BASE NEW, each a batch folder, a task folder or a report.json",
  },
} as const;

/**
 * `agent-run report` for yargs, as main.ts registers commands: `.command(reportCommandModule(() =>
 * { command = "report"; }))`, then `case "report": return reportCommand(parseReportArgs(args), io);`.
 * `onSelected` runs when yargs picks this command; main.ts owns dispatch and exit codes.
 */
export function reportCommandModule(
  onSelected: () => void,
): CommandModule<object, Record<string, unknown>> {
  return {
    command: "report [runs..]",
    describe: "Aggregate run folders into a Markdown table, report.json or JUnit XML",
    builder: (y: Argv<object>) =>
      y
        .positional("runs", {
          type: "string",
          array: true,
          describe: "Batch or task output folders, or globs of them (e.g. 'shards/*')",
        })
        .options(REPORT_FLAGS)
        .example("$0 report agent-runs --junit junit.xml", "table on stdout, JUnit file for CI")
        .example("$0 report 'shard-*' --json report.json", "merge the shards of a sharded batch")
        .example("$0 report --compare last-night tonight", "pass → fail, fail → pass and deltas")
        .epilogue(
          "Exit codes: 0 every run was read (whether the tasks passed or not), 2 bad input (a missing folder, a folder without runs, a bad summary.json, a task in two folders).",
        ),
    handler: onSelected,
  };
}

/** Validates the raw yargs values of `agent-run report`. */
export function parseReportArgs(raw: Record<string, unknown>): ReportArgs {
  const paths = Array.isArray(raw.runs) ? raw.runs.map(String) : [];
  const jsonFile = typeof raw.json === "string" && raw.json !== "" ? raw.json : undefined;
  const junitFile = typeof raw.junit === "string" && raw.junit !== "" ? raw.junit : undefined;
  if (raw.compare === true) {
    const [base, next] = paths;
    if (paths.length !== 2 || base === undefined || next === undefined) {
      throw new ConfigError(
        `--compare takes two reports, BASE and NEW, got ${paths.length}; usage: agent-run report --compare BASE NEW`,
      );
    }
    if (jsonFile !== undefined || junitFile !== undefined) {
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
  return { mode: "report", patterns: paths, jsonFile, junitFile };
}

/**
 * `agent-run report`: prints the Markdown report (or comparison) on stdout and writes the asked-for
 * files. Returns 0 once everything was read, whatever the tasks' outcome; throws `ConfigError`
 * (exit 2) for bad input.
 */
export async function reportCommand(args: ReportArgs, io: CliIo): Promise<number> {
  const onWarning = (message: string) => io.writeErr(`agent-run: warning: ${message}`);
  if (args.mode === "compare") {
    const base = await readReport(args.base, onWarning);
    const next = await readReport(args.next, onWarning);
    io.writeOut(formatComparisonMarkdown(compareReports(base, next)));
    return 0;
  }
  const paths = await expandPatterns(args.patterns);
  const report = buildReport(await loadRunSummaries(paths, { onWarning }));
  if (args.jsonFile !== undefined) await writeOutput("--json", args.jsonFile, reportJson(report));
  if (args.junitFile !== undefined)
    await writeOutput("--junit", args.junitFile, formatJunit(report));
  io.writeOut(formatReportMarkdown(report));
  return 0;
}

/** A comparison side: a `report.json` (or any report file) as written, else folders of runs. */
async function readReport(path: string, onWarning: (message: string) => void): Promise<Report> {
  const isFile = await stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!isFile || basename(path) === "summary.json") {
    return buildReport(await loadRunSummaries([path], { onWarning }));
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${path}: cannot read: ${messageOf(error)}`, error);
  }
  return parseReportJson(text, path);
}

/** Expands globs to the folders (and summary.json files) they match; one matching nothing is an error. */
async function expandPatterns(patterns: readonly string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const pattern of patterns) {
    if (!/[*?[\]{}]/.test(pattern)) {
      paths.push(pattern);
      continue;
    }
    const matches = (
      await glob(pattern, {
        onlyFiles: false,
        expandDirectories: false,
        absolute: isAbsolute(pattern),
      })
    )
      .filter((match) => match.endsWith("/") || basename(match) === "summary.json")
      .sort();
    if (matches.length === 0) {
      throw new ConfigError(`${pattern}: matched no run folders; check the path and the quotes`);
    }
    paths.push(...matches);
  }
  return paths;
}

async function writeOutput(flag: string, file: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  } catch (error) {
    throw new ConfigError(`${flag} ${file}: cannot write: ${messageOf(error)}`, error);
  }
}
