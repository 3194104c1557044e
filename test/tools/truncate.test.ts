import { describe, expect, test } from "vitest";
import { truncateLine, truncateMiddle } from "../../src/tools/truncate.js";

describe("truncateMiddle", () => {
  test("returns short text unchanged", () => {
    expect(truncateMiddle("hello", 5)).toBe("hello");
  });

  test("keeps head and tail and says how much was cut", () => {
    const text = `HEAD${"x".repeat(1000)}TAIL`;

    const result = truncateMiddle(text, 10);

    expect(result).toBe("HEADx\n[... 998 characters cut ...]\nxTAIL");
  });

  test("keeps exactly maxChars characters of the original", () => {
    const result = truncateMiddle("abcdefghij", 4);

    expect(result).toBe("ab\n[... 6 characters cut ...]\nij");
  });
});

describe("truncateLine", () => {
  test("shortens a long line and says how much is left", () => {
    expect(truncateLine("abcdef", 2)).toBe("ab [... line truncated, 4 more characters]");
    expect(truncateLine("ab", 2)).toBe("ab");
  });
});
