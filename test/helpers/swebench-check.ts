// A checker of SWE-bench predictions files, written for these tests from the harness's own reader
// (no code of it copied): `swebench/harness/utils.py`'s `get_predictions_from_file` and what
// `swebench/harness/run_evaluation.py` (`main`, `get_dataset_from_preds`, `run_instance`) and
// `reporting.py` (`make_run_report`) then do with each prediction:
// - the path ends in `.jsonl` (else `.json`, one document; other names are refused);
// - the file is opened as text (universal newlines: `\r\n` and `\r` read as `\n`) and each line
//   is `json.loads`-ed: a blank line, or one that is not JSON, fails the whole file;
// - each line is a JSON object (`dict`) holding `instance_id`;
// - the predictions are keyed by `instance_id`: a second line of one id replaces the first;
// - `model_patch` is read with `pred["model_patch"]` (a KeyError when missing): a string, or null
//   ("" and null count as an empty patch, which is not evaluated);
// - `model_name_or_path` is read with `prediction["model_name_or_path"].replace("/", "__")`: a
//   string, which becomes a folder of the logs.
// The instance ids' presence in the dataset is checked by the harness against the dataset, which
// is not here.

/** One prediction as the harness keeps it. */
export type Prediction = { instance_id: string; model_name_or_path: string; model_patch: string };

/** What the harness would make of `text` read from `path`: its predictions, or why it fails. */
export function readPredictions(
  path: string,
  text: string,
): { predictions: Prediction[]; problems: string[] } {
  const problems: string[] = [];
  if (!path.endsWith(".jsonl")) problems.push(`${path}: not a .jsonl file`);
  const rows = text.replace(/\r\n?/g, "\n").split("\n");
  if (rows.at(-1) === "") rows.pop();
  const predictions: Prediction[] = [];
  for (const [index, row] of rows.entries()) {
    const read = predictionOf(row);
    if (typeof read === "string") problems.push(`line ${index + 1}: ${read}`);
    else if (predictions.some((earlier) => earlier.instance_id === read.instance_id)) {
      problems.push(
        `line ${index + 1}: instance_id ${read.instance_id} again (the harness keeps the last)`,
      );
    } else predictions.push(read);
  }
  return { predictions, problems };
}

/** One line as the harness reads it, or what is wrong with it. */
function predictionOf(row: string): Prediction | string {
  let value: unknown;
  try {
    value = JSON.parse(row);
  } catch {
    return "not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "not a JSON object";
  const get = (key: string): unknown =>
    Object.hasOwn(value, key) ? Reflect.get(value, key) : undefined;
  const id = get("instance_id");
  const patch = get("model_patch");
  const model = get("model_name_or_path");
  if (typeof id !== "string") return "no instance_id string";
  if (typeof patch !== "string" && patch !== null) return "no model_patch string or null";
  if (typeof model !== "string") return "no model_name_or_path string";
  return { instance_id: id, model_name_or_path: model, model_patch: patch ?? "" };
}
