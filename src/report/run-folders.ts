import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import type { Trial } from "../transcript/trials.js";

// Where a batch's runs sit in its output folder: OUT/<task>/ for a task run once, and
// OUT/<task>/trial-<n>/ for each trial of a task run several times (`--trials`). Each is an
// ordinary run folder; a trial's earlier attempts sit inside it, under attempts/<a>/.

/** A trial's folder in its task's folder: `trial-2`. */
function trialFolderName(index: number): string {
  return `trial-${index}`;
}

/** `trial-<n>`, n from 1 (no leading zero): the only sub-folders of a task's folder read as trials. */
const TRIAL_FOLDER = /^trial-([1-9]\d{0,8})$/;

/** The trial a folder's name says it holds, if it is named like a trial's. */
function trialOfFolderName(name: string): number | undefined {
  const match = TRIAL_FOLDER.exec(name);
  return match === null ? undefined : Number(match[1]);
}

/** The run folder of a task's run: `OUT/<task>`, or `OUT/<task>/trial-<n>` for one of its trials. */
export function runDirOf(outDir: string, name: string, trial: Trial | undefined): string {
  const taskDir = join(outDir, name);
  return trial === undefined ? taskDir : join(taskDir, trialFolderName(trial.index));
}

/** The output folder (OUT) that holds a run folder, its `report.json` beside the tasks' folders. */
export function batchDirOf(runDir: string, trial: Trial | undefined): string {
  return trial === undefined ? dirname(runDir) : dirname(dirname(runDir));
}

/** Where a trial's earlier attempt is kept in its run folder: `attempts/1`. */
export const ATTEMPTS_FOLDER = "attempts";

/**
 * How logs, tables and JUnit name a run: its task's name, or `task/trial-2` for a trial (its
 * folder under OUT), so that trials of one task running at once are told apart.
 */
export function runLabel(run: { name: string; trial?: Trial | number | undefined }): string {
  const index = typeof run.trial === "number" ? run.trial : run.trial?.index;
  return index === undefined ? run.name : `${run.name}/${trialFolderName(index)}`;
}

/** A run folder found under a folder given on the command line. */
export type FoundRun = {
  folder: string;
  /** Its summary or transcript, as `fileOf` picked it. */
  file: string;
  /**
   * The trial its folder's name gives, when it was found as one in a task's folder of a batch
   * folder (`OUT/<task>/trial-<n>`), for a run whose own files do not say.
   */
  trialOfFolder: number | undefined;
};

/**
 * The runs in `path`, a folder: itself when `fileOf` finds its run file; else each sub-folder that
 * is a run (`OUT/<task>`), and in each sub-folder that is not, its `trial-<n>` folders that are
 * (`OUT/<task>/trial-<n>`). So a batch folder, a task's folder of trials and a run folder all work.
 * Sorted by folder. A folder that cannot be listed is a `ConfigError`.
 */
export async function findRunFolders(
  path: string,
  fileOf: (folder: string) => Promise<string | undefined>,
): Promise<FoundRun[]> {
  const own = await fileOf(path);
  if (own !== undefined) return [{ folder: path, file: own, trialOfFolder: undefined }];
  const found: FoundRun[] = [];
  for (const name of await subFolders(path)) {
    const folder = join(path, name);
    const file = await fileOf(folder);
    if (file !== undefined) {
      found.push({ folder, file, trialOfFolder: undefined });
      continue;
    }
    // Not a run: a task's folder of trials, or anything else (which may not even list).
    const trialNames = await subFolders(folder).catch(() => []);
    for (const trialName of trialNames.filter((entry) => TRIAL_FOLDER.test(entry))) {
      const trialFolder = join(folder, trialName);
      const trialFile = await fileOf(trialFolder);
      if (trialFile === undefined) continue;
      found.push({
        folder: trialFolder,
        file: trialFile,
        trialOfFolder: trialOfFolderName(trialName),
      });
    }
  }
  return found.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

/** The names of a folder's sub-folders (and links, which `fileOf` follows or not). */
async function subFolders(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name);
  } catch (error) {
    throw new ConfigError(`${path}: cannot list the folder: ${messageOf(error)}`, error);
  }
}
