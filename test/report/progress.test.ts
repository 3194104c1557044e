import { describe, expect, test } from "vitest";
import type { ModelReply } from "../../src/model/model-client.js";
import { ZERO_USAGE } from "../../src/model/model-client.js";
import { createProgressReporter } from "../../src/report/progress.js";

// Issue 14, finding 4: the model's words and check names reach a terminal or a CI log as text:
// one line per log line, and control characters (escape sequences, bells) shown, not acted on.

describe("the progress log", () => {
  test("shows the model's control characters and line breaks as text, on one line", () => {
    const lines: string[] = [];
    const progress = createProgressReporter({
      write: (line) => lines.push(line),
      isColor: false,
      isVerbose: false,
    });
    const text = "done\u001b[2J\u001b]0;title\u0007\r\n::error::pwned";
    const reply = {
      content: [{ type: "text", text }],
      stopReason: "end_turn",
      usage: ZERO_USAGE,
    } as unknown as ModelReply;

    progress.onEvent("t", { type: "model_reply", step: 1, reply, durationMs: 5 });
    progress.onCheck("t", {
      name: "check\u001b[31m\nred",
      kind: "run",
      passed: false,
      message: "m\u0000",
    } as never);

    expect(lines).toEqual([
      "[t] step 1 final reply (5ms): done\\x1b[2J\\x1b]0;title\\x07 ::error::pwned",
      "[t] check FAILED: check\\x1b[31m red (m\\x00)",
    ]);
  });

  test("a limit's line carries the figures with their units, for every kind", () => {
    const lines: string[] = [];
    const progress = createProgressReporter({
      write: (line) => lines.push(line),
      isColor: false,
      isVerbose: false,
    });
    const hits = [
      { limit: "max_steps", used: 2, max: 2 },
      { limit: "max_tokens", used: 12_345, max: 10_000 },
      { limit: "max_cost", used: 0.603, max: 0.5 },
      { limit: "timeout", used: 2_000, max: 2_000 },
      { limit: "budget", used: 23_192, max: 20_000, unit: "tokens" },
      { limit: "budget", used: 1.2, max: 1, unit: "usd" },
    ] as const;

    for (const hit of hits) progress.onEvent("t", { type: "limit_reached", step: 2, ...hit });

    expect(lines).toEqual([
      "[t] step 2 max_steps reached (2 of 2 steps)",
      "[t] step 2 max_tokens reached (12,345 of 10,000 tokens)",
      "[t] step 2 max_cost reached ($0.603 of $0.50)",
      "[t] step 2 timeout reached (2.0 s of 2.0 s)",
      "[t] step 2 budget reached (23,192 of 20,000 tokens)",
      "[t] step 2 budget reached ($1.20 of $1.00)",
    ]);
  });
});
