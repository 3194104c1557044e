import { describe, expect, test } from "vitest";
import { compileCheckPattern, patternProblem } from "../../src/checks/check-pattern.js";

describe("compileCheckPattern", () => {
  test("a leading (?i) becomes the i flag; otherwise no flags", () => {
    const patterns = ["(?i)Fixed", "Fixed"];

    const compiled = patterns.map(compileCheckPattern);

    expect(compiled.map(String)).toEqual(["/Fixed/i", "/Fixed/"]);
    expect(compiled.map((regex) => regex.test("FIXED it"))).toEqual([true, false]);
  });

  test("patternProblem says why a pattern does not compile, or nothing", () => {
    const patterns = ["return (a", "(?i)[z-a]", "fixed(?i)", "ok"];

    const problems = patterns.map(patternProblem);

    expect(problems).toEqual([
      "/return (a/: Unterminated group",
      "/[z-a]/i: Range out of order in character class",
      "/fixed(?i)/: Invalid group; (?i) works only at the very start of the pattern",
      undefined,
    ]);
  });
});
