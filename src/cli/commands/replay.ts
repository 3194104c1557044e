import { join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { isSameOrInside, resolveRealPath } from "../../fs/real-path.js";
import { recordedRun } from "../../replay/recorded-run.js";
import { refreshFolderReport } from "../../report/folder-report.js";
import { isReplaceable, RUN_MARKER_FILE, TRANSCRIPT_FILE } from "../../run/run-folder.js";
import { loadTasks } from "../../task/load-task.js";
import { readTranscript } from "../../transcript/reader.js";
import type { CliIo } from "../io.js";
import type { ReplayArgs } from "../replay-flags.js";
import { type ReplayJob, refuseDuplicateRunDirs, runReplayJobs } from "./replay-jobs.js";

/**
 * A replay writes only below --out, into a folder that is new or agent-run's own (marked), and
 * never over the transcript it reads.
 */
function refuseRunDir(path: string, outDir: string, runDir: string): void {
  const realOut = resolveRealPath(outDir);
  const realRun = resolveRealPath(runDir);
  if (realRun === realOut || !isSameOrInside(realRun, realOut)) {
    throw new ConfigError(`${path}: its run folder ${runDir} is not below --out ${outDir}`);
  }
  if (resolve(path) === join(runDir, TRANSCRIPT_FILE)) {
    throw new ConfigError(`${path}: --out ${outDir} would replace ${runDir}; choose another --out`);
  }
  if (!isReplaceable(runDir)) {
    throw new ConfigError(
      `${path}: --out ${outDir} would replace ${runDir}, which is not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker); choose another --out`,
    );
  }
}

/**
 * `agent-run replay <transcripts...>`: re-run recorded runs offline and report divergences;
 * with `--until-step K --continue`, fork them. Returns the exit code: 1 when a task did not pass,
 * or, with `--strict`, when a replay diverged.
 */
export async function replayCommand(
  args: ReplayArgs,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const outDir = resolve(args.outDir);
  const jobs: ReplayJob[] = [];
  for (const path of args.transcripts) {
    const recorded = recordedRun(
      path,
      await readTranscript(path, { isPartialLastLineDropped: true }),
    );
    const steps = recorded.replies.length;
    const runDir = join(outDir, recorded.task.name);
    refuseRunDir(path, outDir, runDir);
    jobs.push({
      kind: args.isContinued ? "fork" : "replay",
      recorded,
      runDir,
      untilStep: Math.min(args.untilStep ?? steps, steps),
      isContinued: args.isContinued,
      isOffline: args.isOffline,
      limits: args.limits,
    });
  }
  refuseDuplicateRunDirs(jobs);
  const task = args.taskFile === undefined ? undefined : (await loadTasks([args.taskFile]))[0];
  const outcomes = await runReplayJobs(jobs, args, io, signal, task);
  io.writeOut(await refreshFolderReport(outDir, io.redact));
  io.writeOut(`outputs in ${outDir}`);
  const isStrictFailure = args.isStrict && outcomes.some((outcome) => outcome.divergentSteps > 0);
  return isStrictFailure || outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}
