import { formatBytes } from "../../format.js";
import { loadBatchPage, loadComparePage } from "../../view/load-view.js";
import { writeViewFile } from "../../view/write-view.js";
import { displayPath } from "../batch-end.js";
import { expandPatterns } from "../expand-patterns.js";
import type { CliIo } from "../io.js";
import type { ViewArgs } from "../view-flags.js";
import { viewOptions } from "../view-options.js";

/**
 * `agent-run view`: reads the runs (as `report` finds them) and writes the viewer, one HTML file;
 * prints where and how large. Returns 0 once it is written, whatever the tasks' outcome; throws
 * `ConfigError` (exit 2) for bad input.
 */
export async function viewCommand(args: ViewArgs, io: CliIo): Promise<number> {
  const options = viewOptions(io);
  const page =
    args.mode === "compare"
      ? await loadComparePage(args.base, args.next, options)
      : await loadBatchPage(await expandPatterns(args.patterns, "run folders"), options);
  const bytes = await writeViewFile(args.outFile, page, "--out");
  const tasks = page.batches
    .map(({ tasks: { length } }) => `${length} ${length === 1 ? "task" : "tasks"}`)
    .join(" and ");
  io.writeOut(
    `${displayPath(args.outFile)}: ${tasks}, ${formatBytes(bytes)}; open it in a browser (it needs no network)`,
  );
  return 0;
}
