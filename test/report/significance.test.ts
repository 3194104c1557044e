import { describe, expect, test } from "vitest";
import { bootstrapMeanInterval, fisherDropPValue } from "../../src/report/significance.js";

describe("fisherDropPValue (one-sided: the new batch passes less often)", () => {
  test("matches the hypergeometric tail worked out by hand", () => {
    // 5/5 → 0/5: C(5,0)·C(5,5)/C(10,5) = 1/252.
    expect(fisherDropPValue({ passes: 5, trials: 5 }, { passes: 0, trials: 5 })).toBeCloseTo(
      1 / 252,
      12,
    );
    // 3/3 → 1/3: passes 4 of 6; next ≥ 1 pass; P(1) = C(3,1)·C(3,3)/C(6,4) = 3/15.
    expect(fisherDropPValue({ passes: 3, trials: 3 }, { passes: 1, trials: 3 })).toBeCloseTo(
      0.2,
      12,
    );
    // 2/4 → 2/4: (1 + 16 + 36)/70.
    expect(fisherDropPValue({ passes: 2, trials: 4 }, { passes: 2, trials: 4 })).toBeCloseTo(
      53 / 70,
      12,
    );
  });

  test("one trial each can never be significant; a rise is never a drop", () => {
    expect(fisherDropPValue({ passes: 1, trials: 1 }, { passes: 0, trials: 1 })).toBeCloseTo(
      0.5,
      12,
    );
    expect(fisherDropPValue({ passes: 0, trials: 5 }, { passes: 5, trials: 5 })).toBeCloseTo(1, 12);
    expect(fisherDropPValue({ passes: 0, trials: 3 }, { passes: 0, trials: 3 })).toBeCloseTo(1, 12);
  });
});

describe("bootstrapMeanInterval (paired, percentile)", () => {
  test("constant differences give that constant; an empty list gives [0, 0]", () => {
    expect(bootstrapMeanInterval([0, 0, 0])).toMatchObject({ low: 0, high: 0, level: 0.95 });
    expect(bootstrapMeanInterval([-1, -1])).toMatchObject({ low: -1, high: -1 });
    expect(bootstrapMeanInterval([])).toMatchObject({ low: 0, high: 0 });
  });

  test("brackets the mean, is the same on every call, and narrows with more tasks", () => {
    const few = [-1, 0, 0, 0.5, -0.5];
    const a = bootstrapMeanInterval(few);
    const b = bootstrapMeanInterval(few);
    expect(a).toEqual(b);
    expect(a.low).toBeLessThanOrEqual(-0.2);
    expect(a.high).toBeGreaterThanOrEqual(-0.2);
    const many = Array.from({ length: 50 }, (_, i) => few[i % few.length] ?? 0);
    const wide = a.high - a.low;
    const narrow = bootstrapMeanInterval(many);
    expect(narrow.high - narrow.low).toBeLessThan(wide);
  });

  test("a drop in most of 20 tasks lies wholly below zero; noise around zero does not", () => {
    const drop = Array.from({ length: 20 }, (_, i) => (i < 16 ? -1 : 0));
    const noise = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? -0.34 : 0.34));
    expect(bootstrapMeanInterval(drop).high).toBeLessThan(0);
    const around = bootstrapMeanInterval(noise);
    expect(around.low).toBeLessThan(0);
    expect(around.high).toBeGreaterThan(0);
  });
});
