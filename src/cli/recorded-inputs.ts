import { basename, dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { pathKind } from "../fs/path-kind.js";
import { findRunFolders } from "../report/run-folders.js";
import { SUMMARY_FILE } from "../report/summary.js";
import { TRANSCRIPT_FILE } from "../run/run-folder.js";
import { expandPatterns } from "./expand-patterns.js";

/**
 * One recorded run that `replay` or `resume` was given: its transcript, the run folder holding it
 * (none for a transcript given as a file elsewhere), and the batch folder it was found in, when a
 * batch's output folder was given.
 */
export type RecordedInput = {
  transcript: string;
  folder: string | undefined;
  batch: string | undefined;
};

/** The command reading the inputs: `replay` takes transcripts too, `resume` only folders. */
type Reader = "replay" | "resume";

/**
 * Expands what `replay` or `resume` was given, as `run` expands its task files: quoted globs, a
 * task's run folder (OUT/<task>, or a trial's, OUT/<task>/trial-<n>), a batch's output folder (OUT:
 * each run in it, trials included) or a task's folder of trials, and for `replay` a transcript file. A `summary.json` or `report.json` given by mistake is refused, naming what to
 * give instead. Each run is listed once.
 */
export async function findRecordedRuns(
  patterns: readonly string[],
  reader: Reader,
): Promise<RecordedInput[]> {
  const found = new Map<string, RecordedInput>();
  for (const path of await expandPatterns(patterns, "recorded runs")) {
    for (const input of await inputsOf(path, reader)) {
      const key = resolve(input.transcript);
      if (!found.has(key)) found.set(key, input);
    }
  }
  return [...found.values()];
}

async function inputsOf(path: string, reader: Reader): Promise<RecordedInput[]> {
  const kind = await pathKind(path);
  if (kind === "missing") throw new ConfigError(`${path}: no such file or folder`);
  if (kind === "file") return [fileInput(path, reader)];
  const found = await findRunFolders(path, transcriptOf);
  if (found.length === 0) {
    throw new ConfigError(
      `${path}: no ${TRANSCRIPT_FILE} in it, in its sub-folders or in their trial-<n> folders; give a task's run folder (OUT/<task>), a trial's (OUT/<task>/trial-<n>) or a batch's output folder (OUT)${reader === "replay" ? ", or a transcript" : ""}`,
    );
  }
  // A run folder given alone is no batch; the runs found in a folder are its batch's.
  const [only] = found;
  if (found.length === 1 && only?.folder === path) {
    return [{ transcript: only.file, folder: path, batch: undefined }];
  }
  return found.map((run) => ({ transcript: run.file, folder: run.folder, batch: path }));
}

async function transcriptOf(folder: string): Promise<string | undefined> {
  const transcript = join(folder, TRANSCRIPT_FILE);
  return (await pathKind(transcript)) === "file" ? transcript : undefined;
}

/** A file given: a transcript for `replay`; anything else is refused, saying what to give. */
function fileInput(path: string, reader: Reader): RecordedInput {
  const folder = dirname(path);
  const name = basename(path);
  const instead =
    reader === "replay" ? `its run folder ${folder} (or ${join(folder, TRANSCRIPT_FILE)})` : folder;
  if (name === SUMMARY_FILE) {
    throw new ConfigError(`${path}: a run's summary, not its recording; give ${instead}`);
  }
  if (name === "report.json") {
    throw new ConfigError(
      `${path}: a batch's report, not a recording; give the batch's output folder ${folder}`,
    );
  }
  if (reader === "resume") {
    throw new ConfigError(
      `${path}: resume continues a run in its folder, not a transcript; give the run's folder ${folder}`,
    );
  }
  return { transcript: path, folder: undefined, batch: undefined };
}
