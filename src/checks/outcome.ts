import type { CheckOutcome } from "./types.js";

/** A passing outcome; only `run` checks have output. */
export function passed(message: string, output: string | null = null): CheckOutcome {
  return { passed: true, message, output };
}

/** A failing outcome, including checks that could not be evaluated (the message says why). */
export function failed(message: string, output: string | null = null): CheckOutcome {
  return { passed: false, message, output };
}
