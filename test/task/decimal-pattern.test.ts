import { describe, expect, test } from "vitest";
import { decimalAtMostPattern } from "../../src/task/decimal-pattern.js";

describe("decimalAtMostPattern", () => {
  test.each([1, 7, 10, 168, 10_080, 604_800])(
    "at most %i: integers and halves up to twice the bound and next to it, leading zeros too",
    (max) => {
      const pattern = new RegExp(`^${decimalAtMostPattern(max)}$`);
      const step = Math.max(1, Math.floor(max / 500));
      const spread = Array.from({ length: Math.floor((2 * max) / step) + 1 }, (_, i) => i * step);
      const near = [-2, -1, 0, 1, 2].map((offset) => max + offset).filter((n) => n >= 0);
      const wrong: string[] = [];
      for (const n of [...spread, ...near, 10 * max]) {
        for (const text of [`${n}`, `0${n}`, `${n}.5`, `${n}.0`]) {
          if (pattern.test(text) !== Number(text) <= max) wrong.push(text);
        }
      }

      expect(wrong).toEqual([]);
    },
  );

  test("refuses what is not a plain decimal", () => {
    const pattern = new RegExp(`^${decimalAtMostPattern(168)}$`);

    expect(["-1", "1e2", ".5", "5.", "", "1 2"].map((text) => pattern.test(text))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
