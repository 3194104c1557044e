import { describe, expect, it } from "vitest";
import { CUT_MARKER, cutDeeperThan, nestsDeeperThan } from "../src/json-depth.js";

/** `[[[…]]]` `depth` levels deep, as JSON.parse builds it. */
function nestedArrays(depth: number): unknown {
  return JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);
}

/** `{"a":{"a":…1}}` `depth` levels deep. */
function nestedObjects(depth: number): unknown {
  return JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);
}

describe("nestsDeeperThan", () => {
  it.each([
    [1, 0],
    ["a", 0],
    [null, 0],
    [{}, 1],
    [[1, 2], 1],
    [{ a: [2] }, 2],
    [{ a: 1, b: { c: { d: [] } }, e: [] }, 4],
  ])("%j nests %i levels", (value, depth) => {
    expect(nestsDeeperThan(value, depth)).toBe(false);
    if (depth > 0) expect(nestsDeeperThan(value, depth - 1)).toBe(true);
  });

  it("measures a million levels without recursion", () => {
    expect(nestsDeeperThan(nestedArrays(1_000_000), 64)).toBe(true);
    expect(nestsDeeperThan(nestedObjects(1_000_000), 999_999)).toBe(true);
    expect(nestsDeeperThan(nestedObjects(1_000_000), 1_000_000)).toBe(false);
  });
});

describe("cutDeeperThan", () => {
  it("hands back a value that nests no deeper as it is", () => {
    const value = { a: [1, { b: 2 }] };
    expect(cutDeeperThan(value, 3)).toBe(value);
    expect(cutDeeperThan("text", 0)).toBe("text");
  });

  it("keeps the first levels and marks what was cut", () => {
    expect(cutDeeperThan({ a: { b: { c: 1 } }, d: [[1], 2], e: "x" }, 2)).toEqual({
      a: { b: CUT_MARKER },
      d: [CUT_MARKER, 2],
      e: "x",
    });
  });

  it("cuts 1,000,000 levels to a value JSON.stringify and structuredClone can walk", () => {
    for (const deep of [nestedArrays(1_000_000), nestedObjects(1_000_000)]) {
      const cut = cutDeeperThan(deep, 65);
      expect(nestsDeeperThan(cut, 65)).toBe(false);
      expect(nestsDeeperThan(cut, 64)).toBe(true);
      expect(JSON.stringify(cut)).toContain(CUT_MARKER);
      expect(() => structuredClone(cut)).not.toThrow();
    }
  });

  it("keeps a __proto__ key a key", () => {
    const cut = cutDeeperThan(JSON.parse('{"__proto__": {"x": {"y": 1}}, "k": 1}'), 2) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(cut)).toBe(Object.prototype);
    expect(Object.keys(cut)).toEqual(["__proto__", "k"]);
    expect(JSON.stringify(cut)).toBe(`{"__proto__":{"x":"${CUT_MARKER}"},"k":1}`);
  });
});
