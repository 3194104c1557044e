import { describe, expect, test } from "vitest";
import { evaluateOutputCheck } from "../../src/checks/output-check.js";

function check(pointer: string, value: unknown) {
  return { kind: "output_equals" as const, name: "label", line: 3, pointer, value };
}

const OUTPUT = { label: "bug", tags: ["ui", "crash"], meta: { score: 0.5 } };

describe("output_equals", () => {
  test("passes when the value at the pointer equals the check's", () => {
    expect([
      evaluateOutputCheck(check("/label", "bug"), OUTPUT),
      evaluateOutputCheck(check("/tags", ["ui", "crash"]), OUTPUT),
      evaluateOutputCheck(
        check("", { tags: ["ui", "crash"], meta: { score: 0.5 }, label: "bug" }),
        OUTPUT,
      ),
    ]).toEqual([
      { passed: true, message: `the output's /label is "bug"`, output: null },
      { passed: true, message: `the output's /tags is ["ui","crash"]`, output: null },
      expect.objectContaining({
        passed: true,
        message: expect.stringMatching(/^the structured output is /),
      }),
    ]);
  });

  test("fails saying what is there, what is missing, or that there is no output", () => {
    expect([
      evaluateOutputCheck(check("/label", "feature"), OUTPUT).message,
      evaluateOutputCheck(check("/meta/score", "0.5"), OUTPUT).message,
      evaluateOutputCheck(check("/meta/owner/name", "x"), OUTPUT).message,
      evaluateOutputCheck(check("/label", "bug"), undefined).message,
    ]).toEqual([
      `the output's /label is "bug", not "feature"`,
      `the output's /meta/score is 0.5, not "0.5"`,
      "the output has nothing at /meta/owner",
      "the run has no structured output (no final reply valid against output_schema)",
    ]);
  });

  test("a huge value is clipped in the message", () => {
    const outcome = evaluateOutputCheck(check("/label", "bug"), { label: "x".repeat(100_000) });

    expect(outcome.passed).toBe(false);
    expect(outcome.message.length).toBeLessThan(400);
  });
});
