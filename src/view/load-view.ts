import { DEFAULT_PRICES } from "../model/pricing.js";
import { type Redactor, redactStrings } from "../redact.js";
import { buildReport } from "../report/aggregate.js";
import { loadRunSummaries } from "../report/load-runs.js";
import type { RunSummary } from "../report/run-summary.js";
import { AGENT_RUN_VERSION } from "../version.js";
import { buildBatchView } from "./batch-view.js";
import { buildCompareView } from "./compare-view.js";
import type { RunViewContext } from "./run-view.js";
import { createTextClipper, VIEW_BOUNDS } from "./view-bounds.js";
import type { ViewBatch, ViewPage } from "./view-data.js";

/** How the page is built: secrets to hide, where warnings go, how folders are named in it. */
export type ViewOptions = {
  redact: Redactor;
  onWarning: (message: string) => void;
  showPath: (folder: string) => string;
};

/** The page of one batch: the runs under `paths` (task or batch folders), found as `report` finds them. */
export async function loadBatchPage(
  paths: readonly string[],
  options: ViewOptions,
): Promise<ViewPage> {
  const label = paths.map(options.showPath).join(", ");
  const { runs, warnings } = await loadRuns(paths, options);
  return buildBatchPage(label, runs, { ...options, warnings });
}

/** The page of runs already read; a task's several runs (trials) are grouped under it. */
async function buildBatchPage(
  label: string,
  runs: readonly RunSummary[],
  options: ViewOptions & { warnings?: readonly string[] },
): Promise<ViewPage> {
  const context = { ...pageContext(options), warnings: options.warnings ?? [] };
  const batch = await buildBatchView(label, runs, context);
  return finishPage(`agent-run: ${label}`, [batch], null, options.redact);
}

/** The page of two batches and their comparison (`view --compare BASE NEW`). */
export async function loadComparePage(
  base: string,
  next: string,
  options: ViewOptions,
): Promise<ViewPage> {
  const context = pageContext(options);
  const before = await loadBatch(`base: ${options.showPath(base)}`, [base], context, options);
  const after = await loadBatch(`new: ${options.showPath(next)}`, [next], context, options);
  const compare = buildCompareView(buildReport(before.runs), buildReport(after.runs));
  const title = `agent-run: ${options.showPath(base)} → ${options.showPath(next)}`;
  return finishPage(title, [before.batch, after.batch], compare, options.redact);
}

function pageContext(options: ViewOptions): RunViewContext {
  return {
    clip: createTextClipper(options.redact, VIEW_BOUNDS),
    bounds: VIEW_BOUNDS,
    prices: DEFAULT_PRICES,
    showPath: options.showPath,
  };
}

async function loadBatch(
  label: string,
  paths: readonly string[],
  context: RunViewContext,
  options: ViewOptions,
): Promise<{ batch: ViewBatch; runs: RunSummary[] }> {
  const { runs, warnings } = await loadRuns(paths, options);
  return { batch: await buildBatchView(label, runs, { ...context, warnings }), runs };
}

/** The runs under `paths`, and the warnings about folders left out (also passed on). */
async function loadRuns(paths: readonly string[], options: ViewOptions) {
  const warnings: string[] = [];
  const onWarning = (message: string) => {
    warnings.push(message);
    options.onWarning(message);
  };
  return { runs: await loadRunSummaries(paths, { onWarning }), warnings };
}

/** The page, with every string passed through `redact` (the texts were redacted before their cut too). */
function finishPage(
  title: string,
  batches: ViewBatch[],
  compare: ViewPage["compare"],
  redact: Redactor,
): ViewPage {
  const page: ViewPage = {
    title,
    generator: `agent-run ${AGENT_RUN_VERSION}`,
    bounds: VIEW_BOUNDS,
    batches,
    compare,
  };
  return redactStrings(page, redact);
}
