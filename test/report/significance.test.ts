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

/** A task that passed `base` of `trials` trials before and `next` of them now. */
function task(base: number, next: number, trials = 3) {
  return { base: { passes: base, trials }, next: { passes: next, trials } };
}

describe("bootstrapMeanInterval (paired, two-level, percentile)", () => {
  test("tasks whose trials agree give their one change; no task gives [0, 0]", () => {
    expect(bootstrapMeanInterval([task(3, 3), task(0, 0)])).toMatchObject({
      low: 0,
      high: 0,
      level: 0.95,
    });
    expect(bootstrapMeanInterval([task(3, 0), task(3, 0)])).toMatchObject({ low: -1, high: -1 });
    expect(bootstrapMeanInterval([])).toMatchObject({ low: 0, high: 0 });
  });

  test("brackets the mean change, is the same on every call, and narrows with more tasks", () => {
    const few = [task(3, 0), task(3, 3), task(2, 2), task(1, 3), task(3, 1)];
    const a = bootstrapMeanInterval(few);
    expect(bootstrapMeanInterval(few)).toEqual(a);
    // The mean change: (-3 + 0 + 0 + 2 - 2) / 3 / 5 = -0.2.
    expect(a.low).toBeLessThanOrEqual(-0.2);
    expect(a.high).toBeGreaterThanOrEqual(-0.2);
    const many = Array.from({ length: 50 }, (_, i) => few[i % few.length] ?? task(0, 0));
    const narrow = bootstrapMeanInterval(many);
    expect(narrow.high - narrow.low).toBeLessThan(a.high - a.low);
  });

  test("trials that disagree widen the interval: a flaky task's rate is drawn, not taken as is", () => {
    const steady = Array.from({ length: 12 }, (_, i) => (i === 0 ? task(3, 2) : task(3, 3)));
    const flaky = Array.from({ length: 12 }, (_, i) => (i === 0 ? task(2, 1) : task(3, 3)));
    const a = bootstrapMeanInterval(steady);
    const b = bootstrapMeanInterval(flaky);
    expect(a.high).toBe(0);
    expect(b.high).toBeGreaterThan(0);
  });

  test("a drop in 4 of 12 tasks lies wholly below zero; one flaky trial either way does not", () => {
    const drop = Array.from({ length: 12 }, (_, i) => (i < 4 ? task(3, 0) : task(3, 3)));
    const noise = Array.from({ length: 12 }, (_, i) =>
      i === 0 ? task(2, 3) : i === 1 ? task(3, 2) : task(3, 3),
    );
    expect(bootstrapMeanInterval(drop).high).toBeLessThan(0);
    const around = bootstrapMeanInterval(noise);
    expect(around.low).toBeLessThan(0);
    expect(around.high).toBeGreaterThan(0);
  });
});
