import { DEFAULT_PRICES } from "../model/pricing.js";
import { type Redactor, redactStrings } from "../redact.js";
import type { Report } from "../report/aggregate.js";
import { loadRunSummaries } from "../report/load-runs.js";
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
  const { batch } = await loadBatch(label, paths, pageContext(options), options);
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
  const compare = buildCompareView(before.report, after.report);
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

/** One batch of the page (a task's several runs, trials, grouped under it), and its report. */
async function loadBatch(
  label: string,
  paths: readonly string[],
  context: RunViewContext,
  options: ViewOptions,
): Promise<{ batch: ViewBatch; report: Report }> {
  const { runs, warnings } = await loadRuns(paths, options);
  return buildBatchView(label, runs, { ...context, warnings });
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
