import { describe, expect, test } from "vitest";
import { compileCheckPattern, patternProblem } from "../../src/checks/check-pattern.js";

describe("compileCheckPattern", () => {
  test("a leading flag group of i, m and s becomes JavaScript's flags; otherwise no flags", () => {
    const patterns = ["(?i)Fixed", "Fixed", "(?s)a.b", "(?m)^b$", "(?ims)^A.B$", "(?ii)x"];

    const compiled = patterns.map(compileCheckPattern);

    expect(compiled.map(String)).toEqual([
      "/Fixed/i",
      "/Fixed/",
      "/a.b/s",
      "/^b$/m",
      "/^A.B$/ims",
      "/x/i",
    ]);
    expect(compiled.map((regex) => regex.test("FIXED it"))).toEqual([
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(compiled[2]?.test("a\nb")).toBe(true);
    expect(compiled[3]?.test("a\nb\nc")).toBe(true);
    expect(compiled[4]?.test("x\na\nb\ny")).toBe(true);
  });

  test("patternProblem says why a pattern does not compile, naming the flag syntax, or nothing", () => {
    const patterns = [
      "return (a",
      "(?i)[z-a]",
      "fixed(?i)",
      "(?x)a b",
      "(?i)a(?s:b)",
      "ok\\Z",
      "ok",
    ];

    const problems = patterns.map(patternProblem);

    const syntax =
      "a check's regex is a JavaScript regular expression, optionally starting with one flag group: (?i) ignores case, (?m) makes ^ and $ match at each line, (?s) lets . match line breaks, combined as (?ims)";
    expect(problems).toEqual([
      "/return (a/: Unterminated group",
      "/[z-a]/i: Range out of order in character class",
      `/fixed(?i)/: Invalid group; flags work only as one group at the very start of the pattern: ${syntax}`,
      `flag x in (?x) is not supported; ${syntax}`,
      `/a(?s:b)/i: Invalid group; flags work only as one group at the very start of the pattern: ${syntax}`,
      '\\Z is not JavaScript syntax (it matches a plain "Z"); write $ for the end of the text',
      undefined,
    ]);
  });
});
