/**
 * The viewer's file name: the one `run --view` writes in the batch's output folder (beside
 * `report.json`), and `agent-run view`'s output file when `--out` is not given.
 */
export const VIEW_FILE = "view.html";
