import { ConfigError } from "../errors.js";

// SWE-bench's predictions file, as its harness reads it (`swebench/harness/utils.py`,
// `get_predictions_from_file`): a `.jsonl` file, each line `json.loads`-ed on its own (so no blank
// line), each a JSON object with `instance_id`; `run_evaluation.py` keys the predictions by
// `instance_id` (a second line of one id would silently replace the first) and reads
// `model_patch` (an empty or null patch is counted as "empty patch" and not evaluated) and
// `model_name_or_path` (a folder name of its logs, with `/` written as `__`).

/** One prediction: one line of the file. */
export type SwebenchPrediction = {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
};

/** What a prediction is made of, for one run. */
export type SwebenchRun = {
  /** The run folder, for messages. */
  folder: string;
  instanceId: string;
  /** The model the run used (the init line's). */
  model: string;
  /** The run's `changes.patch`; empty when it has none. */
  patch: string;
};

/**
 * The predictions of `runs`, in their order; `modelName` (`--model-name`) replaces each run's
 * model. Throws `ConfigError` (exit 2) when two runs are of one instance, or a model name would
 * make no folder name for SWE-bench's logs.
 */
export function swebenchPredictions(
  runs: readonly SwebenchRun[],
  modelName: string | undefined,
): SwebenchPrediction[] {
  const byInstance = new Map<string, SwebenchRun[]>();
  for (const run of runs)
    byInstance.set(run.instanceId, [...(byInstance.get(run.instanceId) ?? []), run]);
  for (const [instanceId, shared] of byInstance) {
    if (shared.length < 2) continue;
    const folders = shared.map((run) => run.folder).join(", ");
    throw new ConfigError(
      `instance "${instanceId}" has ${shared.length} runs (${folders}); a predictions file holds one per instance (SWE-bench keeps the last): export one run of it, e.g. one trial's folders (OUT/*/trial-1)`,
    );
  }
  return runs.map((run) => {
    const model = modelName ?? run.model;
    checkModelName(model, run.folder);
    return { instance_id: run.instanceId, model_name_or_path: model, model_patch: run.patch };
  });
}

/** The file's text: one JSON object per line, each line ended by a newline. */
export function formatPredictions(predictions: readonly SwebenchPrediction[]): string {
  return predictions.map((prediction) => `${JSON.stringify(prediction)}\n`).join("");
}

/**
 * SWE-bench makes a folder of `model_name_or_path` (`/` replaced with `__`) under its log folder:
 * a name that is `.` or `..` there, or holds a control character or a backslash, is refused.
 */
function checkModelName(model: string, folder: string): void {
  const asFolder = model.replaceAll("/", "__");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  if (asFolder !== "." && asFolder !== ".." && !/[\u0000-\u001f\u007f\\]/.test(asFolder)) return;
  throw new ConfigError(
    `${folder}: the model name ${JSON.stringify(model)} makes no folder name for SWE-bench's logs; give one with --model-name`,
  );
}
