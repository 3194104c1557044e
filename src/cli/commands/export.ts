import { isUtf8 } from "node:buffer";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, messageOf, TranscriptError } from "../../errors.js";
import { atifFileNames } from "../../export/atif-file-names.js";
import { atifTrajectory } from "../../export/atif-trajectory.js";
import { instanceIdOf, parseExportInit } from "../../export/export-init.js";
import { formatPredictions, type SwebenchRun, swebenchPredictions } from "../../export/swebench.js";
import { writeOutputFile } from "../../fs/output-file.js";
import { readWholeFile } from "../../fs/read-head.js";
import { type StagedFiles, stagedFiles } from "../../fs/staged-files.js";
import type { PriceTable } from "../../model/pricing.js";
import { redactStrings } from "../../redact.js";
import { loadRunSummaries } from "../../report/load-runs.js";
import type { RunSummary } from "../../report/run-summary.js";
import { INTERRUPTED_STATUS } from "../../report/unfinished-run.js";
import { PATCH_FILE, TRANSCRIPT_FILE } from "../../run/run-folder.js";
import type { TranscriptLine } from "../../transcript/line-schemas.js";
import {
  MAX_TRANSCRIPT_BYTES,
  parseTranscript,
  readTranscriptText,
} from "../../transcript/reader.js";
import { expandPatterns } from "../expand-patterns.js";
import type { ExportArgs } from "../export-flags.js";
import type { CliIo } from "../io.js";
import { loadPrices } from "../models.js";

/**
 * `agent-run export`: writes the runs found under the given folders as SWE-bench predictions
 * and/or ATIF trajectories, each value through the same redaction as every output. Everything is
 * read and converted before anything is put in place: bad input (exit 2, `ConfigError` or
 * `TranscriptError`) leaves no file of this export behind. Returns 0.
 */
export async function exportCommand(args: ExportArgs, io: CliIo): Promise<number> {
  const onWarning = (message: string) => io.writeErr(`agent-run: warning: ${message}`);
  const prices = await loadPrices(args.pricesFile);
  const paths = await expandPatterns(args.patterns, "run folders");
  const runs = await loadRunSummaries(paths, { onWarning });
  // Secrets go from the raw values, before JSON escapes them.
  const redact = <T>(value: T): T =>
    io.redact === undefined ? value : redactStrings(value, io.redact);
  const staged = stagedFiles();
  try {
    const exported = await exportRuns(runs, args, { prices, staged, redact, onWarning });
    if (args.swebenchFile !== undefined) {
      const predictions = redact(swebenchPredictions(exported.predictions, args.modelName));
      await writeOutputFile("--swebench", args.swebenchFile, formatPredictions(predictions));
      const empty = predictions.filter((prediction) => prediction.model_patch === "").length;
      const count = predictions.length;
      io.writeOut(
        `wrote ${count} ${count === 1 ? "prediction" : "predictions"} to ${args.swebenchFile} (${empty} with an empty patch)`,
      );
    }
    await staged.commit();
    if (args.atifDir !== undefined) {
      const count = exported.trajectories;
      io.writeOut(
        `wrote ${count} ${count === 1 ? "trajectory" : "trajectories"} to ${args.atifDir}`,
      );
    }
  } catch (error) {
    await staged.discard();
    throw error;
  }
  return 0;
}

type ExportContext = {
  prices: PriceTable;
  staged: StagedFiles;
  redact: <T>(value: T) => T;
  onWarning: (message: string) => void;
};

/** Reads each run once: its prediction kept, its trajectory staged in the `--atif` folder. */
async function exportRuns(
  runs: readonly RunSummary[],
  args: ExportArgs,
  context: ExportContext,
): Promise<{ predictions: SwebenchRun[]; trajectories: number }> {
  const names = args.atifDir === undefined ? [] : atifFileNames(runs);
  if (args.atifDir !== undefined) await makeFolder(args.atifDir);
  const predictions: SwebenchRun[] = [];
  let trajectories = 0;
  for (const [index, run] of runs.entries()) {
    const path = join(run.folder, TRANSCRIPT_FILE);
    const lines = await readRunTranscript(run, path, context.onWarning);
    if (lines === undefined) continue;
    const init = parseExportInit(lines, path);
    if (init.task.name !== run.name) {
      throw new TranscriptError(
        `${path}:1: the transcript is of task "${init.task.name}", and ${run.folder}'s summary of "${run.name}"; it is not exported`,
      );
    }
    if (args.swebenchFile !== undefined) {
      const patch = await readPatch(run.folder);
      predictions.push({
        folder: run.folder,
        instanceId: instanceIdOf(init),
        model: init.model,
        patch,
      });
    }
    const name = names[index];
    if (args.atifDir === undefined || name === undefined) continue;
    const trajectory = context.redact(
      atifTrajectory(lines, { path, init, prices: context.prices }),
    );
    await stage(
      context.staged,
      join(args.atifDir, name),
      `${JSON.stringify(trajectory, null, 2)}\n`,
    );
    trajectories += 1;
  }
  return { predictions, trajectories };
}

/**
 * A run's transcript lines. A run killed before it wrote its init line (an empty transcript) has
 * nothing to export: undefined, with a warning. A killed run's partial last line is dropped.
 */
async function readRunTranscript(
  run: RunSummary,
  path: string,
  onWarning: (message: string) => void,
): Promise<TranscriptLine[] | undefined> {
  const text = await readTranscriptText(path);
  const isInterrupted = run.status === INTERRUPTED_STATUS;
  if (text === "" && isInterrupted) {
    onWarning(`${run.folder}: killed before its transcript began; left out of the export`);
    return undefined;
  }
  return parseTranscript(text, path, { isPartialLastLineDropped: isInterrupted });
}

/** The run's `changes.patch`, or "" when it has none (a run that changed nothing, or was killed). */
async function readPatch(folder: string): Promise<string> {
  const path = join(folder, PATCH_FILE);
  let bytes: Buffer | undefined;
  try {
    // A patch is text in a string: at most what a transcript may hold.
    bytes = await readWholeFile(path, MAX_TRANSCRIPT_BYTES);
  } catch (error) {
    throw new ConfigError(`${path}: cannot read: ${messageOf(error)}`, error);
  }
  if (bytes === undefined) return "";
  // agent-run writes patches as UTF-8 (binary changes as git's base85); JSON holds nothing else.
  if (!isUtf8(bytes)) throw new ConfigError(`${path}: not UTF-8, so not a patch agent-run wrote`);
  return bytes.toString("utf8");
}

async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw new ConfigError(`--atif ${folder}: cannot make the folder: ${messageOf(error)}`, error);
  }
}

async function stage(staged: StagedFiles, path: string, text: string): Promise<void> {
  try {
    await staged.stage(path, text);
  } catch (error) {
    throw new ConfigError(`--atif ${path}: cannot write: ${messageOf(error)}`, error);
  }
}
