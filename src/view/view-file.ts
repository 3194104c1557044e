/** The file `run --view` writes in the batch's output folder (beside `report.json`). */
export const VIEW_FILE = "view.html";
