import { readdir, readFile, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { pathKind } from "../fs/path-kind.js";
import { compareNames } from "./aggregate.js";
import { parseRunSummary, type RunSummary } from "./run-summary.js";
import { SUMMARY_FILE } from "./summary.js";

/** Where a loader's warnings go (a task folder a killed run left without `summary.json`). */
export type LoadRunsOptions = { onWarning?: (message: string) => void };

/**
 * Reads the runs under `paths`, each a task folder (holding `summary.json`), a batch folder (its
 * immediate sub-folders that hold one; a `report.json` beside them is ignored) or a `summary.json`.
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
    for (const file of await findSummaryFiles(path, options)) {
      files.set(await realpath(file), file);
    }
  }
  const runs: RunSummary[] = [];
  const byName = new Map<string, RunSummary>();
  for (const file of files.values()) {
    const run = parseRunSummary(await readText(file), file, dirname(file));
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

async function findSummaryFiles(path: string, options: LoadRunsOptions): Promise<string[]> {
  const kind = await pathKind(path);
  if (kind === "missing") throw new ConfigError(`${path}: no such file or folder`);
  if (kind === "file") {
    if (basename(path) === SUMMARY_FILE) return [path];
    throw new ConfigError(
      `${path}: not a run folder; give a task's output folder (holding summary.json) or a batch's output folder`,
    );
  }
  const own = join(path, SUMMARY_FILE);
  if ((await pathKind(own)) === "file") return [own];
  const found: string[] = [];
  for (const entry of await listFolder(path)) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const folder = join(path, entry.name);
    const file = join(folder, SUMMARY_FILE);
    if ((await pathKind(file)) === "file") found.push(file);
    else if ((await pathKind(join(folder, "transcript.jsonl"))) === "file") {
      options.onWarning?.(
        `${folder}: a transcript but no summary.json (a run killed before it finished?); left out of the report`,
      );
    }
  }
  // A batch folder with its report.json but no runs is a batch of no tasks (an empty shard).
  if (found.length === 0 && (await pathKind(join(path, "report.json"))) !== "file") {
    throw new ConfigError(
      `${path}: no runs in it (no summary.json in it or in its immediate sub-folders)`,
    );
  }
  return found.sort();
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
