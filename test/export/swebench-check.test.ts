import { describe, expect, test } from "vitest";
import { readPredictions } from "../helpers/swebench-check.js";

// The predictions checker (test/helpers/swebench-check.ts) must refuse what SWE-bench's harness
// refuses or loses, or the export's "the harness reads it" test proves nothing: one broken file
// per rule, one violation each.

const line = (prediction: Record<string, unknown>) => JSON.stringify(prediction);
const good = {
  instance_id: "a__b-1",
  model_name_or_path: "m",
  model_patch: "diff --git a/x b/x\n",
};
const other = { ...good, instance_id: "a__b-2", model_patch: "" };

const CASES: [string, string, string][] = [
  ["a .json file", "preds.json", `${line(good)}\n`],
  ["a blank line", "preds.jsonl", `${line(good)}\n\n${line(other)}\n`],
  ["a line that is not JSON", "preds.jsonl", `${line(good)}\n{"instance_id": \n`],
  ["a line that is a list", "preds.jsonl", `${line(good)}\n[1]\n`],
  ["no instance_id", "preds.jsonl", `${line({ model_name_or_path: "m", model_patch: "" })}\n`],
  ["no model_patch", "preds.jsonl", `${line({ instance_id: "x", model_name_or_path: "m" })}\n`],
  ["a model_patch that is a number", "preds.jsonl", `${line({ ...good, model_patch: 1 })}\n`],
  ["no model_name_or_path", "preds.jsonl", `${line({ instance_id: "x", model_patch: "" })}\n`],
  ["one instance twice", "preds.jsonl", `${line(good)}\n${line(good)}\n`],
];

describe("the SWE-bench predictions checker", () => {
  test("reads a valid file: each line a prediction, a null patch as empty, CRLF as LF", () => {
    const text = `${line(good)}\r\n${line({ ...other, model_patch: null })}\n`;

    expect(readPredictions("preds.jsonl", text)).toEqual({
      predictions: [good, other],
      problems: [],
    });
  });

  test.each(CASES)("refuses %s", (_name, path, text) => {
    expect(readPredictions(path, text).problems).toHaveLength(1);
  });
});
