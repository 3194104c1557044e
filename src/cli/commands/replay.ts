import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { isSameOrInside, resolveRealPath } from "../../fs/real-path.js";
import { type RecordedRun, recordedRun } from "../../replay/recorded-run.js";
import { formatReportMarkdown } from "../../report/markdown.js";
import { runDirOf } from "../../report/run-folders.js";
import { isReplaceable, RUN_MARKER_FILE, TRANSCRIPT_FILE } from "../../run/run-folder.js";
import { loadTasks } from "../../task/load-task.js";
import type { Task } from "../../task/schema.js";
import { readTranscript } from "../../transcript/reader.js";
import type { CliIo } from "../io.js";
import { findRecordedRuns } from "../recorded-inputs.js";
import type { ReplayArgs } from "../replay-flags.js";
import { type ReplayJob, refuseDuplicateRunDirs, runReplayJobs } from "./replay-jobs.js";

/**
 * A replay writes only below --out, into a folder that is new or agent-run's own (marked), and
 * never over the transcript it reads.
 */
function refuseRunDir(path: string, outDir: string, runDir: string, isTrial: boolean): void {
  const realOut = resolveRealPath(outDir);
  const realRun = resolveRealPath(runDir);
  if (realRun === realOut || !isSameOrInside(realRun, realOut)) {
    throw new ConfigError(`${path}: its run folder ${runDir} is not below --out ${outDir}`);
  }
  if (resolve(path) === join(runDir, TRANSCRIPT_FILE)) {
    throw new ConfigError(`${path}: --out ${outDir} would replace ${runDir}; choose another --out`);
  }
  // A trial's run goes into its task's folder of trials, which must be agent-run's too.
  for (const folder of isTrial ? [runDir, dirname(runDir)] : [runDir]) {
    if (isReplaceable(folder)) continue;
    throw new ConfigError(
      `${path}: --out ${outDir} would replace ${folder}, which is not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker); choose another --out`,
    );
  }
}

/**
 * `agent-run replay <runs...>` (transcripts, run folders, batch folders, globs): re-run recorded
 * runs offline and report divergences; with `--until-step K --continue`, fork them. Returns the
 * exit code: 1 when a task did not pass, or, with `--strict`, when a replay diverged.
 */
export async function replayCommand(
  args: ReplayArgs,
  io: CliIo,
  signal: AbortSignal,
): Promise<number> {
  const outDir = resolve(args.outDir);
  const jobs: ReplayJob[] = [];
  const inputs = await findRecordedRuns(args.transcripts, "replay");
  const task = args.taskFile === undefined ? undefined : (await loadTasks([args.taskFile]))[0];
  if (task !== undefined && inputs.length > 1) {
    throw new ConfigError(
      `--task goes with one recorded run at a time; ${args.transcripts.join(" ")} holds ${inputs.length}`,
    );
  }
  for (const { transcript: path } of inputs) {
    const recorded = recordedRun(
      path,
      await readTranscript(path, { isPartialLastLineDropped: true }),
    );
    const steps = recorded.replies.length;
    if (args.untilStep !== undefined && args.untilStep > steps) {
      io.writeErr(
        `agent-run: warning: ${path}: --until-step ${args.untilStep} is beyond the recording, which has ${steps} ${steps === 1 ? "step" : "steps"}; replaying all ${steps}`,
      );
    }
    if (task !== undefined) warnUnusedTaskFields(io, args.taskFile ?? "", task, recorded);
    const runDir = runDirOf(outDir, recorded.task.name, recorded.trial);
    refuseRunDir(path, outDir, runDir, recorded.trial !== undefined);
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
  const outcomes = await runReplayJobs(jobs, args, io, signal, task, (report) => {
    io.writeOut(formatReportMarkdown(report, "plain"));
    io.writeOut(`outputs in ${outDir}`);
  });
  const isStrictFailure = args.isStrict && outcomes.some((outcome) => outcome.divergentSteps > 0);
  return isStrictFailure || outcomes.some((outcome) => !outcome.summary.passed) ? 1 : 0;
}

/**
 * `--task`'s `name` and `workspace` are not used: the new run is named after the recording (its
 * folder under --out, its place in a report) and starts from the recorded workspace, where the
 * recorded tool calls ran. Saying so beats silently ignoring a file that names others.
 */
function warnUnusedTaskFields(io: CliIo, file: string, task: Task, recorded: RecordedRun): void {
  const unused = [
    task.name === recorded.task.name
      ? undefined
      : `name "${task.name}" (the run keeps the recording's, "${recorded.task.name}")`,
    resolve(task.workspace) === resolve(recorded.task.workspace)
      ? undefined
      : `workspace ${task.workspace} (the run starts from the recorded one, ${recorded.task.workspace})`,
  ].filter((text) => text !== undefined);
  if (unused.length === 0) return;
  const verb = unused.length === 1 ? "is" : "are";
  io.writeErr(`agent-run: warning: --task ${file}: its ${unused.join(" and ")} ${verb} not used`);
}
