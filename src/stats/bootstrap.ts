import { createRng } from "../util/random.js";

/**
 * A fixed set of bootstrap resamples of `n` items, drawn once from a seed and reused for every
 * method: that is what makes the comparison PAIRED (both methods see the same resampled items).
 */
export interface BootstrapPlan {
  readonly n: number;
  readonly resamples: number;
  readonly seed: number;
  /** `resamples x n` item indices, row-major. */
  readonly indices: Int32Array;
}

/**
 * Draws `resamples` resamples (with replacement) of `n` items.
 *
 * @example
 * ```ts
 * const plan = bootstrapPlan(testRows.length, 1000, 7);
 * const [lo, hi] = bootstrapMeanCi(perItemScores, plan);
 * ```
 */
export function bootstrapPlan(n: number, resamples = 1000, seed = 0): BootstrapPlan {
  const rng = createRng(seed);
  const indices = new Int32Array(resamples * n);
  for (let k = 0; k < indices.length; k++) indices[k] = rng.int(n);
  return { n, resamples, seed, indices };
}

/** Mean of the finite values of `v` at one resample's indices. */
function resampleMean(v: ArrayLike<number>, plan: BootstrapPlan, b: number): number {
  let s = 0;
  let c = 0;
  const base = b * plan.n;
  for (let k = 0; k < plan.n; k++) {
    const x = v[plan.indices[base + k]!]!;
    if (Number.isFinite(x)) {
      s += x;
      c++;
    }
  }
  return c > 0 ? s / c : NaN;
}

/** Percentile interval [q/2, 1 - q/2] of a sample (linear interpolation), NaNs dropped. */
export function percentileInterval(stats: ArrayLike<number>, level = 0.95): [number, number] {
  const s = Array.from(stats)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (s.length === 0) return [NaN, NaN];
  const q = (p: number): number => {
    const r = p * (s.length - 1);
    const lo = Math.floor(r);
    const hi = Math.ceil(r);
    return s[lo]! + (s[hi]! - s[lo]!) * (r - lo);
  };
  const tail = (1 - level) / 2;
  return [q(tail), q(1 - tail)];
}

/**
 * 95% percentile-bootstrap interval of the mean of per-item values (NaN = item not scored for
 * this method, e.g. a single model unobserved on it; skipped in each resample's mean).
 */
export function bootstrapMeanCi(values: ArrayLike<number>, plan: BootstrapPlan, level = 0.95): [number, number] {
  checkLength(values, plan);
  const stats = new Float64Array(plan.resamples);
  for (let b = 0; b < plan.resamples; b++) stats[b] = resampleMean(values, plan, b);
  return percentileInterval(stats, level);
}

/**
 * Paired 95% bootstrap interval of mean(a) - mean(b): each resample takes the SAME items for
 * both, so item difficulty cancels out of the comparison.
 */
export function bootstrapDiffCi(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  plan: BootstrapPlan,
  level = 0.95,
): [number, number] {
  checkLength(a, plan);
  checkLength(b, plan);
  const stats = new Float64Array(plan.resamples);
  for (let r = 0; r < plan.resamples; r++) stats[r] = resampleMean(a, plan, r) - resampleMean(b, plan, r);
  return percentileInterval(stats, level);
}

function checkLength(v: ArrayLike<number>, plan: BootstrapPlan): void {
  if (v.length !== plan.n) {
    throw new RangeError(`bootstrap: got ${v.length} per-item values for a plan over ${plan.n} items`);
  }
}
