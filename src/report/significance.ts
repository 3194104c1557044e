// The two tests `report --compare` states: Fisher's exact test for one task's pass rate over its
// trials, and a paired, two-level bootstrap confidence interval for the change in the batch's
// mean pass rate. Pure
// functions: the same inputs give the same answer (the bootstrap's random numbers come from a
// seeded generator), so a comparison prints the same on every machine.

/** Passes out of trials. */
export type PassCount = { passes: number; trials: number };

/**
 * The one-sided p-value of Fisher's exact test that `next` passes less often than `base`: the
 * chance, if both had the same pass rate, of `next` getting at most as many passes as it did,
 * given the passes of both together (the hypergeometric distribution). Small: a real drop.
 */
export function fisherDropPValue(base: PassCount, next: PassCount): number {
  const total = base.trials + next.trials;
  const passes = base.passes + next.passes;
  // next's passes can range from max(0, passes − base.trials) to min(passes, next.trials).
  const low = Math.max(0, passes - base.trials);
  let p = 0;
  for (let k = low; k <= next.passes; k += 1) {
    p += Math.exp(
      logChoose(next.trials, k) + logChoose(base.trials, passes - k) - logChoose(total, passes),
    );
  }
  return Math.min(1, p);
}

/** ln C(n, k), by sums of logs (trial counts are small; this stays exact enough and never overflows). */
function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  const smaller = Math.min(k, n - k);
  let sum = 0;
  for (let i = 1; i <= smaller; i += 1) sum += Math.log(n - smaller + i) - Math.log(i);
  return sum;
}

/** A confidence interval: `low` and `high` bound the statistic at `level` (0.95). */
export type Interval = { low: number; high: number; level: number };

/**
 * The paired, two-level bootstrap's percentile interval for the mean over tasks of the change in
 * pass rate (new minus base): `resamples` times, draw the tasks with replacement and, within each
 * drawn task, draw its trials with replacement on each side; take that draw's mean change; the
 * middle `level` of those means is the interval. Drawing the trials too counts their noise: a task
 * that passed 2 of 3 trials might as well have passed 1 or 3. Seeded: the same tasks give the same
 * interval on every machine. No task gives [0, 0].
 */
export function bootstrapMeanInterval(
  tasks: readonly { base: PassCount; next: PassCount }[],
  options: { resamples?: number; level?: number; seed?: number } = {},
): Interval {
  const resamples = options.resamples ?? 10_000;
  const level = options.level ?? 0.95;
  const n = tasks.length;
  if (n === 0) return { low: 0, high: 0, level };
  const random = mulberry32(options.seed ?? 0x5eed);
  const means = new Float64Array(resamples);
  for (let draw = 0; draw < resamples; draw += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) {
      const task = tasks[Math.floor(random() * n)];
      if (task !== undefined) sum += drawnRate(task.next, random) - drawnRate(task.base, random);
    }
    means[draw] = sum / n;
  }
  means.sort();
  const tail = (1 - level) / 2;
  const at = (q: number) =>
    means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))] ?? 0;
  return { low: at(tail), high: at(1 - tail), level };
}

/** The pass rate of `count.trials` trials drawn with replacement from `count`'s. */
function drawnRate(count: PassCount, random: () => number): number {
  const { passes, trials } = count;
  if (trials === 0) return 0;
  // All passed or none did: every draw gives the same rate.
  if (passes === 0 || passes === trials) return passes / trials;
  const rate = passes / trials;
  let drawn = 0;
  for (let i = 0; i < trials; i += 1) if (random() < rate) drawn += 1;
  return drawn / trials;
}

/** A small, well-known 32-bit generator: uniform in [0, 1), the same sequence for the same seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
