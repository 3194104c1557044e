import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConfigError } from "../errors.js";
import { pathKind } from "../fs/path-kind.js";
import { compareNames } from "./aggregate.js";
import { readReportText } from "./read-report-text.js";
import { type FoundRun, findRunFolders } from "./run-folders.js";
import { parseRunSummary, type RunSummary } from "./run-summary.js";
import { SUMMARY_FILE } from "./summary.js";
import { readUnfinishedRun } from "./unfinished-run.js";

/** Where a loader's warnings go (a task folder whose transcript cannot be read, and no `summary.json`). */
export type LoadRunsOptions = { onWarning?: (message: string) => void };

/**
 * Reads the runs under `paths`, each a task folder (holding `summary.json`), a batch folder (its
 * immediate sub-folders that hold one, and the `trial-<n>` folders of those that do not; a
 * `report.json` beside them is ignored), a task's folder of trials, or a `summary.json`.
 * A task folder with a transcript but no `summary.json` (a killed run) counts as `interrupted`.
 * Returns them sorted by task name and trial. A task's trial found twice (a task run once is its
 * trial 1) is an error naming both folders, so a report merged from shards never counts a run twice
 * (the same folder given twice counts once).
 * Throws `ConfigError` (exit 2) for a missing path, a folder without runs, or a bad `summary.json`.
 */
export async function loadRunSummaries(
  paths: readonly string[],
  options: LoadRunsOptions = {},
): Promise<RunSummary[]> {
  const found = new Map<string, FoundRun>();
  for (const path of paths) {
    for (const run of await findRuns(path)) {
      found.set(await realpath(run.file), run);
    }
  }
  const runs: RunSummary[] = [];
  const byTrial = new Map<string, RunSummary>();
  for (const place of found.values()) {
    const run = await readRun(place, options);
    if (run === undefined) continue;
    // A task run once is its trial 1: it cannot be merged with another batch's trials either.
    const key = JSON.stringify([run.name, run.trial ?? 1]);
    const earlier = byTrial.get(key);
    if (earlier !== undefined) {
      const what =
        run.trial === undefined && earlier.trial === undefined ? "" : ` trial ${run.trial ?? 1}`;
      throw new ConfigError(
        `task "${run.name}"${what} appears twice, in ${earlier.folder} and in ${run.folder}; give each task's run once (shards must not overlap)`,
      );
    }
    byTrial.set(key, run);
    runs.push(run);
  }
  return runs.sort((a, b) => compareNames(a.name, b.name) || (a.trial ?? 1) - (b.trial ?? 1));
}

/** A run's `summary.json`, or its transcript when it has none (a killed run); undefined: left out. */
async function readRun(place: FoundRun, options: LoadRunsOptions): Promise<RunSummary | undefined> {
  const { file, folder } = place;
  if (basename(file) === SUMMARY_FILE)
    return parseRunSummary(await readReportText(file), file, folder);
  const run = await readUnfinishedRun(folder, file, place.trialOfFolder);
  if (!("problem" in run)) return run;
  options.onWarning?.(
    `${folder}: a transcript but no summary.json, and the transcript cannot be read (${run.problem}); left out of the report`,
  );
  return undefined;
}

/** The runs under `path` (see `findRunFolders`): each folder's `summary.json`, else its transcript. */
async function findRuns(path: string): Promise<FoundRun[]> {
  const kind = await pathKind(path);
  if (kind === "missing") throw new ConfigError(`${path}: no such file or folder`);
  if (kind === "file") {
    if (basename(path) === SUMMARY_FILE)
      return [{ folder: dirname(path), file: path, trialOfFolder: undefined }];
    throw new ConfigError(
      `${path}: not a run folder; give a task's output folder (holding summary.json) or a batch's output folder`,
    );
  }
  const found = await findRunFolders(path, runFileOf);
  // A batch folder with its report.json but no runs is a batch of no tasks (an empty shard).
  if (found.length === 0 && (await pathKind(join(path, "report.json"))) !== "file") {
    throw new ConfigError(
      `${path}: no runs in it (no summary.json in it, in its immediate sub-folders, or in their trial-<n> folders)`,
    );
  }
  return found;
}

async function runFileOf(folder: string): Promise<string | undefined> {
  for (const name of [SUMMARY_FILE, "transcript.jsonl"]) {
    if ((await pathKind(join(folder, name))) === "file") return join(folder, name);
  }
  return undefined;
}
