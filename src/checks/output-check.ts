import { clip } from "../format.js";
import { jsonEqual, resolveJsonPointer } from "./json-pointer.js";
import { failed, passed } from "./outcome.js";
import type { Check, CheckOutcome } from "./types.js";

/** Most characters of a JSON value a message shows. */
const MAX_SHOWN_CHARS = 200;

/** Passes when the structured output holds, at the check's JSON Pointer, a value equal to its `value`. */
export function evaluateOutputCheck(
  check: Extract<Check, { kind: "output_equals" }>,
  output: unknown,
): CheckOutcome {
  const where = check.pointer === "" ? "the structured output" : `the output's ${check.pointer}`;
  if (output === undefined) {
    return failed("the run has no structured output (no final reply valid against output_schema)");
  }
  const target = resolveJsonPointer(output, check.pointer);
  if (!target.found) return failed(`the output has nothing at ${clip(target.missing, 200)}`);
  if (jsonEqual(target.value, check.value)) return passed(`${where} is ${shown(check.value)}`);
  return failed(`${where} is ${shown(target.value)}, not ${shown(check.value)}`);
}

/** A JSON value as a message shows it, clipped. */
export function shown(value: unknown): string {
  return clip(JSON.stringify(value) ?? String(value), MAX_SHOWN_CHARS);
}
