import { compileCheckPattern } from "./check-pattern.js";
import { failed, passed } from "./outcome.js";
import type { Check, CheckOutcome } from "./types.js";

/** How much of a non-matching final message a failure shows, so the reader sees what was said. */
const MAX_SHOWN_CHARS = 80;

/** Tests the agent's last message against the check's regex. */
export function evaluateFinalTextCheck(
  check: Extract<Check, { kind: "final_text_matches" }>,
  finalText: string,
): CheckOutcome {
  const regex = compileCheckPattern(check.pattern);
  if (regex.test(finalText)) return passed(`the final message matches ${regex}`);
  const text = finalText.trim().replace(/\s+/g, " ");
  if (text === "") return failed(`the agent left no final message to match ${regex}`);
  const shown = text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text;
  return failed(`the final message does not match ${regex}; it reads ${JSON.stringify(shown)}`);
}
