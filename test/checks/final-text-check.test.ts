import { describe, expect, test } from "vitest";
import { evaluateFinalTextCheck } from "../../src/checks/final-text-check.js";

const matching = (pattern: string) => ({
  kind: "final_text_matches" as const,
  name: "says fixed",
  line: 12,
  pattern,
});

describe("evaluateFinalTextCheck", () => {
  test("passes when the last message matches; (?i) makes it case-insensitive", () => {
    const text = "Fixed the bug in add(); all tests pass.";

    const outcomes = [
      evaluateFinalTextCheck(matching("tests pass"), text),
      evaluateFinalTextCheck(matching("(?i)^fixed"), text),
    ];

    expect(outcomes).toEqual([
      { passed: true, message: "the final message matches /tests pass/", output: null },
      { passed: true, message: "the final message matches /^fixed/i", output: null },
    ]);
  });

  test("fails without (?i) on a case difference, quoting the start of what was said", () => {
    const text = `Fixed it.\n\n${"More detail. ".repeat(10)}`;

    const outcome = evaluateFinalTextCheck(matching("^fixed"), text);

    expect(outcome).toEqual({
      passed: false,
      message: `the final message does not match /^fixed/; it reads "${`Fixed it. ${"More detail. ".repeat(10)}`.slice(0, 80)}…"`,
      output: null,
    });
  });

  test("fails when the agent left no final message", () => {
    const outcome = evaluateFinalTextCheck(matching("(?i)fixed"), "  \n");

    expect(outcome).toEqual({
      passed: false,
      message: "the agent left no final message to match /fixed/i",
      output: null,
    });
  });
});
