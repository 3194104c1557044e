import { readdir, readFile, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { pathKind } from "../fs/path-kind.js";
import { compareNames } from "./aggregate.js";
import { parseRunSummary, type RunSummary } from "./run-summary.js";
import { SUMMARY_FILE } from "./summary.js";
import { readUnfinishedRun } from "./unfinished-run.js";

/** Where a loader's warnings go (a task folder whose transcript cannot be read, and no `summary.json`). */
export type LoadRunsOptions = { onWarning?: (message: string) => void };

/**
 * Reads the runs under `paths`, each a task folder (holding `summary.json`), a batch folder (its
 * immediate sub-folders that hold one; a `report.json` beside them is ignored) or a `summary.json`.
 * A task folder with a transcript but no `summary.json` (a killed run) counts as `interrupted`.
 * Returns them sorted by task name. A task name found twice is an error naming both folders, so a
 * report merged from shards never counts a task twice (the same folder given twice counts once).
 * Throws `ConfigError` (exit 2) for a missing path, a folder without runs, or a bad `summary.json`.
 */
export async function loadRunSummaries(
  paths: readonly string[],
  options: LoadRunsOptions = {},
): Promise<RunSummary[]> {
  const files = new Map<string, string>();
  for (const path of paths) {
    for (const file of await findRunFiles(path)) {
      files.set(await realpath(file), file);
    }
  }
  const runs: RunSummary[] = [];
  const byName = new Map<string, RunSummary>();
  for (const file of files.values()) {
    const run = await readRun(file, options);
    if (run === undefined) continue;
    const earlier = byName.get(run.name);
    if (earlier !== undefined) {
      throw new ConfigError(
        `task "${run.name}" appears twice, in ${earlier.folder} and in ${run.folder}; give each task's run once (shards must not overlap)`,
      );
    }
    byName.set(run.name, run);
    runs.push(run);
  }
  return runs.sort((a, b) => compareNames(a.name, b.name));
}

/** A run's `summary.json`, or its transcript when it has none (a killed run); undefined: left out. */
async function readRun(file: string, options: LoadRunsOptions): Promise<RunSummary | undefined> {
  const folder = dirname(file);
  if (basename(file) === SUMMARY_FILE) return parseRunSummary(await readText(file), file, folder);
  const run = await readUnfinishedRun(folder, file);
  if (!("problem" in run)) return run;
  options.onWarning?.(
    `${folder}: a transcript but no summary.json, and the transcript cannot be read (${run.problem}); left out of the report`,
  );
  return undefined;
}

/** The runs under `path`: each folder's `summary.json`, else its transcript. */
async function findRunFiles(path: string): Promise<string[]> {
  const kind = await pathKind(path);
  if (kind === "missing") throw new ConfigError(`${path}: no such file or folder`);
  if (kind === "file") {
    if (basename(path) === SUMMARY_FILE) return [path];
    throw new ConfigError(
      `${path}: not a run folder; give a task's output folder (holding summary.json) or a batch's output folder`,
    );
  }
  const own = await runFileOf(path);
  if (own !== undefined) return [own];
  const found: string[] = [];
  for (const entry of await listFolder(path)) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const file = await runFileOf(join(path, entry.name));
    if (file !== undefined) found.push(file);
  }
  // A batch folder with its report.json but no runs is a batch of no tasks (an empty shard).
  if (found.length === 0 && (await pathKind(join(path, "report.json"))) !== "file") {
    throw new ConfigError(
      `${path}: no runs in it (no summary.json in it or in its immediate sub-folders)`,
    );
  }
  return found.sort();
}

async function runFileOf(folder: string): Promise<string | undefined> {
  for (const name of [SUMMARY_FILE, "transcript.jsonl"]) {
    if ((await pathKind(join(folder, name))) === "file") return join(folder, name);
  }
  return undefined;
}

async function listFolder(path: string) {
  try {
    return await readdir(path, { withFileTypes: true });
  } catch (error) {
    throw new ConfigError(`${path}: cannot list the folder: ${messageOf(error)}`, error);
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${file}: cannot read: ${messageOf(error)}`, error);
  }
}
