import { describe, expect, test } from "vitest";
import { passAtK, passEstimates, passHatK } from "../../src/report/pass-at-k.js";

/** C(n, k) by its definition, for small n. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return result;
}

describe("pass@k and pass^k", () => {
  test("equal the binomial formulas for every n ≤ 12, c ≤ n, k ≤ n", () => {
    for (let n = 1; n <= 12; n += 1) {
      for (let c = 0; c <= n; c += 1) {
        for (let k = 1; k <= n; k += 1) {
          const where = `n=${n} c=${c} k=${k}`;
          expect(passAtK(n, c, k), where).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
          expect(passHatK(n, c, k), where).toBeCloseTo(choose(c, k) / choose(n, k), 12);
        }
      }
    }
  });

  test("a few by hand", () => {
    // n = 5, c = 1: pass@2 = 1 - C(4,2)/C(5,2) = 1 - 6/10; pass^2 = C(1,2)/C(5,2) = 0.
    expect(passAtK(5, 1, 2)).toBeCloseTo(0.4, 12);
    expect(passHatK(5, 1, 2)).toBe(0);
    // n = 4, c = 3: pass@2 = 1 - C(1,2)/C(4,2) = 1; pass^2 = C(3,2)/C(4,2) = 3/6.
    expect(passAtK(4, 3, 2)).toBe(1);
    expect(passHatK(4, 3, 2)).toBeCloseTo(0.5, 12);
    // k = 1: both are the pass rate.
    expect(passAtK(10, 7, 1)).toBeCloseTo(0.7, 12);
    expect(passHatK(10, 7, 1)).toBeCloseTo(0.7, 12);
  });

  test("stay exact where the binomials overflow (n = 100)", () => {
    expect(passAtK(100, 50, 50)).toBeCloseTo(1, 12);
    expect(passHatK(100, 100, 100)).toBe(1);
    expect(passHatK(100, 99, 100)).toBe(0);
    expect(passAtK(100, 1, 1)).toBeCloseTo(0.01, 12);
  });

  test("the batch's: every k up to the fewest trials, averaged over tasks, 6 decimals", () => {
    const estimates = passEstimates([
      { trials: 3, passedTrials: 2 },
      { trials: 4, passedTrials: 4 },
      { trials: 2, passedTrials: 0 },
    ]);

    // k = 1: (2/3 + 1 + 0) / 3; k = 2: pass@2 = (1 + 1 + 0) / 3, pass^2 = (1/3 + 1 + 0) / 3.
    expect(estimates).toEqual([
      { k: 1, passAtK: 0.555556, passHatK: 0.555556 },
      { k: 2, passAtK: 0.666667, passHatK: 0.444444 },
    ]);
    expect(passEstimates([])).toEqual([]);
  });
});
