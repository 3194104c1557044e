import { roundMillionths } from "../format.js";
// The batch's estimates over repeated trials: pass@k and pass^k with their unbiased estimators,
// per task from its n trials of which c passed, then averaged over the tasks.

/** pass@k and pass^k for one k, each the mean over the report's tasks (rounded to 6 decimals). */
export type PassEstimate = { k: number; passAtK: number; passHatK: number };

/**
 * The chance that at least one of k trials drawn without replacement from the task's n passes:
 * pass@k = 1 − C(n−c, k) / C(n, k) (Chen et al., 2021), as the product 1 − Π_{i=n−c+1}^{n} (1 − k/i),
 * which stays exact where the binomials overflow. 1 when fewer than k trials failed.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i += 1) product *= 1 - k / i;
  return 1 - product;
}

/**
 * The chance that all of k trials drawn without replacement from the task's n pass:
 * pass^k = C(c, k) / C(n, k) (Yao et al., 2024, τ-bench), as Π_{i=0}^{k−1} (c−i) / (n−i).
 * 0 when fewer than k trials passed.
 */
export function passHatK(n: number, c: number, k: number): number {
  if (c < k) return 0;
  let product = 1;
  for (let i = 0; i < k; i += 1) product *= (c - i) / (n - i);
  return product;
}

/**
 * pass@k and pass^k for every k from 1 to the fewest trials of any task (so every task has at
 * least k), each averaged over the tasks with equal weight; none for a report of no tasks.
 */
export function passEstimates(
  tasks: readonly { trials: number; passedTrials: number }[],
): PassEstimate[] {
  if (tasks.length === 0) return [];
  const maxK = Math.min(...tasks.map((task) => task.trials));
  const mean = (estimate: (n: number, c: number) => number) =>
    roundMillionths(
      tasks.reduce((sum, task) => sum + estimate(task.trials, task.passedTrials), 0) / tasks.length,
    );
  return Array.from({ length: maxK }, (_, index) => {
    const k = index + 1;
    return {
      k,
      passAtK: mean((n, c) => passAtK(n, c, k)),
      passHatK: mean((n, c) => passHatK(n, c, k)),
    };
  });
}
