import { describe, expect, test } from "vitest";
import { createRedactor } from "../../src/redact.js";
import { createTextClipper, cutAt } from "../../src/view/view-bounds.js";

describe("createTextClipper", () => {
  test("keeps a field whole up to its bound, and counts what it cuts", () => {
    const clip = createTextClipper((text) => text, { maxFieldChars: 5_000, maxTotalChars: 1e9 });

    expect(clip("short")).toEqual({ text: "short", cut: 0 });
    expect(clip("x".repeat(5_003))).toEqual({ text: "x".repeat(5_000), cut: 3 });
  });

  test("redacts before it cuts: a secret across the cut shows no part of itself", () => {
    const secret = "sk-secret-value-123456";
    const clip = createTextClipper(createRedactor([secret]), {
      maxFieldChars: 2_010,
      maxTotalChars: 1e9,
    });

    const clipped = clip(`${"a".repeat(2_000)}${secret}`);
    expect(clipped.text).toBe(`${"a".repeat(2_000)}[REDACTED]`);
    expect(clipped.text).not.toContain("sk-secret");
  });

  test("once the page's total is spent, each field keeps 2,000 characters", () => {
    const clip = createTextClipper((text) => text, {
      maxFieldChars: 10_000,
      maxTotalChars: 12_000,
    });

    expect(clip("a".repeat(10_000)).cut).toBe(0);
    expect(clip("b".repeat(10_000)).cut).toBe(8_000);
    expect(clip("c".repeat(10_000))).toEqual({ text: "c".repeat(2_000), cut: 8_000 });
  });

  test("never cuts a surrogate pair in two", () => {
    expect(cutAt("ab😀", 3)).toBe("ab");
    expect(cutAt("ab😀", 4)).toBe("ab😀");
  });
});
