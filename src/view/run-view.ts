import { LIMIT_NAMES } from "../agent/events.js";
import type { PriceTable } from "../model/pricing.js";
import type { RunCheck, RunSummary } from "../report/run-summary.js";
import { readChanges, readDivergence } from "./read-run-files.js";
import { readTimeline } from "./read-timeline.js";
import type { TextClipper } from "./view-bounds.js";
import type { ViewBounds, ViewCheck, ViewRun } from "./view-data.js";

/** What building a run's view needs: the page's clipper and bounds, and prices for the steps. */
export type RunViewContext = {
  clip: TextClipper;
  bounds: ViewBounds;
  prices: PriceTable;
  /** How the page names the run's folder (relative to where the command ran, when below it). */
  showPath: (folder: string) => string;
};

/** One run as the page shows it: `summary.json`'s figures, the transcript, the diff, a replay's divergence. */
export async function buildRunView(run: RunSummary, context: RunViewContext): Promise<ViewRun> {
  const { clip } = context;
  const timeline = await readTimeline(run.folder, context);
  const divergence = await readDivergence(run.folder, clip);
  const problems = [
    "problem" in timeline ? timeline.problem : null,
    divergence !== null && "problem" in divergence ? divergence.problem : null,
  ].filter((problem) => problem !== null);
  return {
    trial: run.trial ?? null,
    folder: context.showPath(run.folder),
    taskFile: clip(run.taskFile).text,
    status: clip(run.status).text,
    passed: run.passed,
    error: run.error === null ? null : clip(run.error),
    model: clip(run.model).text,
    steps: run.steps,
    tokens: run.totalTokens,
    costUsd: run.costUsd,
    durationMs: run.durationMs,
    overLimit: overLimitOf(run),
    plan: run.plan ?? null,
    changedFileCount: run.changedFileCount,
    checks: run.checks.map((check) => viewCheck(check, clip)),
    timeline: "timeline" in timeline ? timeline.timeline : null,
    timelineProblem: problems.length === 0 ? null : problems.join("; "),
    changes: await readChanges(run.folder, run.changedFiles, context),
    divergence: divergence === null || "problem" in divergence ? null : divergence,
    origin: "origin" in timeline ? timeline.origin : null,
  };
}

/** The limit that stopped a run, or that its final reply went past. */
function overLimitOf(run: RunSummary): string | null {
  if (LIMIT_NAMES.some((limit) => limit === run.status)) return run.status;
  return run.limitExceededByFinalReply?.limit ?? null;
}

function viewCheck(check: RunCheck, clip: TextClipper): ViewCheck {
  return {
    name: clip(check.name).text,
    kind: check.kind,
    passed: check.passed,
    message: clip(check.message),
    output: check.output === null ? null : clip(check.output),
    line: check.line,
    durationMs: check.durationMs,
  };
}
