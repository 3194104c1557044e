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
});
