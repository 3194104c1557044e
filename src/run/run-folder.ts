import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, hasErrorCode } from "../errors.js";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import { type Redactor, redactStrings } from "../redact.js";
import { ATTEMPTS_FOLDER } from "../report/run-folders.js";
import { SUMMARY_FILE, summaryJson, type TaskSummary } from "../report/summary.js";

// What a run folder (OUT/<task>/) holds, and how its files are written.

/** The run's transcript, as every run folder has it. */
export const TRANSCRIPT_FILE = "transcript.jsonl";

/** The run's patch of the workspace's changes. */
export const PATCH_FILE = "changes.patch";

/** The run's structured output (a task with `output_schema` whose final reply was valid). */
export const OUTPUT_FILE = "output.json";

/**
 * The file agent-run writes first into every run folder it makes: only a folder holding it is
 * ever emptied or replaced (a transcript.jsonl alone proves nothing; anyone can write one).
 */
export const RUN_MARKER_FILE = ".agent-run";

const RUN_MARKER = `${JSON.stringify({ format: "agent-run run folder", version: 1 })}\n`;

/** What a run folder's state allows: a new run may use it when it is `missing`, `empty` or `ours`. */
export type RunDirState = "missing" | "empty" | "ours" | "foreign";

/** Whether `runDir` is free, agent-run's own (a real folder holding our marker file), or not ours. */
export function runDirState(runDir: string): RunDirState {
  let entries: string[];
  try {
    // A symlink is not followed: it could lead anywhere.
    if (!lstatSync(runDir).isDirectory()) return "foreign";
    entries = readdirSync(runDir);
  } catch (error) {
    return hasErrorCode(error, "ENOENT") ? "missing" : "foreign";
  }
  if (entries.length === 0) return "empty";
  return hasMarker(runDir) ? "ours" : "foreign";
}

function hasMarker(runDir: string): boolean {
  const marker = join(runDir, RUN_MARKER_FILE);
  try {
    return lstatSync(marker).isFile() && readFileSync(marker, "utf8") === RUN_MARKER;
  } catch {
    return false;
  }
}

/** True when a new run may replace what is in `runDir`. */
export function isReplaceable(runDir: string): boolean {
  return runDirState(runDir) !== "foreign";
}

/**
 * Empties the run folder (creating it if needed) and marks it as agent-run's, keeping the
 * `preserve`d file names. Refuses (`ConfigError`) a folder agent-run did not make.
 */
export async function clearRunDir(runDir: string, preserve: readonly string[]): Promise<void> {
  if (!isReplaceable(runDir)) {
    throw new ConfigError(
      `${runDir} is not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker), so it will not be emptied; choose another --out or remove it`,
    );
  }
  mkdirSync(runDir, { recursive: true });
  const entries = readdirSync(runDir);
  await Promise.all(
    entries
      .filter((entry) => entry !== RUN_MARKER_FILE && !preserve.includes(entry))
      .map((entry) => rm(join(runDir, entry), { recursive: true, force: true })),
  );
  writeFileSync(join(runDir, RUN_MARKER_FILE), RUN_MARKER);
}

/**
 * Makes `taskDir` a task's folder of trials for one run to write a trial into (a replay): created
 * and marked when missing or empty; emptied when it holds the run of a task run once (whose files
 * would hide the trials from `report`); else kept as it is, with its other trials. Refuses
 * (`ConfigError`) a folder agent-run did not make.
 */
export async function prepareTrialsDir(taskDir: string): Promise<void> {
  const state = runDirState(taskDir);
  const holdsRun = readdirSafe(taskDir).some((entry) => RUN_FILES.includes(entry));
  if (state === "ours" && !holdsRun) return;
  await clearRunDir(taskDir, []);
}

/** The files that make a folder a run's own (rather than a task's folder of trials). */
const RUN_FILES = [TRANSCRIPT_FILE, SUMMARY_FILE];

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/**
 * Moves a finished attempt's files into `attempts/<attempt>/` of its run folder, marked as a run
 * folder of its own, so the next attempt starts in an empty run folder (keep `attempts` when
 * clearing it) and the earlier one stays whole.
 */
export async function keepAttempt(runDir: string, attempt: number): Promise<void> {
  const target = join(runDir, ATTEMPTS_FOLDER, String(attempt));
  await mkdir(target, { recursive: true });
  for (const entry of readdirSync(runDir)) {
    if (entry === ATTEMPTS_FOLDER || entry === RUN_MARKER_FILE) continue;
    await rename(join(runDir, entry), join(target, entry));
  }
  writeFileSync(join(target, RUN_MARKER_FILE), RUN_MARKER);
}

/** Writes `changes.patch`, secrets hidden. */
export async function writePatch(runDir: string, patch: string, redact: Redactor): Promise<void> {
  await writeFileAtomic(join(runDir, PATCH_FILE), redact(patch));
}

/** Writes `output.json`, the structured output as pretty-printed JSON, secrets hidden. */
export async function writeOutput(
  runDir: string,
  value: Readonly<Record<string, unknown>>,
  redact: Redactor,
): Promise<void> {
  await writeRedactedJson(join(runDir, OUTPUT_FILE), value, redact);
}

/** Writes `summary.json`, secrets hidden. */
export async function writeSummary(summary: TaskSummary, redact: Redactor): Promise<void> {
  await writeRedactedJson(join(summary.runDir, SUMMARY_FILE), summary, redact, summaryJson);
}

/**
 * Writes `value` (shaped for the file by `toJson`) as pretty-printed JSON, secrets hidden. Strings
 * are redacted first: a value quoted inside a string (a check message) is escaped twice.
 */
async function writeRedactedJson<T>(
  path: string,
  value: T,
  redact: Redactor,
  toJson: (redacted: T) => unknown = (redacted) => redacted,
): Promise<void> {
  const text = `${JSON.stringify(toJson(redactStrings(value, redact)), null, 2)}\n`;
  await writeFileAtomic(path, redact(text));
}
