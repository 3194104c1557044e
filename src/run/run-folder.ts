import { mkdirSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/write-file-atomic.js";
import type { Redactor } from "../redact.js";
import { SUMMARY_FILE, summaryJson, type TaskSummary } from "../report/summary.js";

// What a run folder (OUT/<task>/) holds, and how its files are written.

/** The run's transcript, as every run folder has it. */
export const TRANSCRIPT_FILE = "transcript.jsonl";

/** The run's patch of the workspace's changes. */
export const PATCH_FILE = "changes.patch";

/** Empties the run folder (creating it if needed), keeping the `preserve`d file names. */
export async function clearRunDir(runDir: string, preserve: readonly string[]): Promise<void> {
  mkdirSync(runDir, { recursive: true });
  const entries = readdirSync(runDir);
  await Promise.all(
    entries
      .filter((entry) => !preserve.includes(entry))
      .map((entry) => rm(join(runDir, entry), { recursive: true, force: true })),
  );
}

/** Writes `changes.patch`, secrets hidden. */
export async function writePatch(runDir: string, patch: string, redact: Redactor): Promise<void> {
  await writeFileAtomic(join(runDir, PATCH_FILE), redact(patch));
}

/** Writes `summary.json`, secrets hidden. */
export async function writeSummary(summary: TaskSummary, redact: Redactor): Promise<void> {
  const text = `${JSON.stringify(summaryJson(summary), null, 2)}\n`;
  await writeFileAtomic(join(summary.runDir, SUMMARY_FILE), redact(text));
}
