/**
 * Rank correlations between two paired samples (e.g. models' predicted and observed accuracies): Spearman's rho
 * (Pearson correlation of mid-ranks, so ties are handled) and Kendall's tau-b (tie-corrected). NaN when a sample
 * is constant or has fewer than two pairs.
 */
import { pearson } from "../stats/metrics.js";

/** Mid-ranks (1-based; tied values share the mean of their ranks). */
export function midRanks(v: ArrayLike<number>): Float64Array {
  const n = v.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => v[a]! - v[b]!);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && v[order[j + 1]!]! === v[order[i]!]!) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = r;
    i = j + 1;
  }
  return ranks;
}

function checkPairs(a: ArrayLike<number>, b: ArrayLike<number>, what: string): void {
  if (a.length !== b.length)
    throw new RangeError(`${what}: samples of different lengths (${a.length} and ${b.length})`);
}

/**
 * Spearman's rank correlation rho.
 *
 * @example
 * ```ts
 * spearman([1, 2, 3], [10, 30, 20]); // 0.5
 * ```
 */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkPairs(a, b, "spearman");
  if (a.length < 2) return NaN;
  // Pearson's r of the mid-ranks; NaN when either side is constant (0 / 0).
  return pearson(midRanks(a), midRanks(b));
}

/**
 * Kendall's tau-b: (concordant - discordant) / sqrt((n0 - ties in a) (n0 - ties in b)), n0 = n (n - 1) / 2. O(n^2).
 *
 * @example
 * ```ts
 * kendall([1, 2, 3], [10, 30, 20]); // 1/3
 * ```
 */
export function kendall(a: ArrayLike<number>, b: ArrayLike<number>): number {
  checkPairs(a, b, "kendall");
  const n = a.length;
  if (n < 2) return NaN;
  let s = 0;
  let tiesA = 0;
  let tiesB = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0) tiesA++;
      if (db === 0) tiesB++;
      s += da * db;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const denom = Math.sqrt((n0 - tiesA) * (n0 - tiesB));
  return denom > 0 ? s / denom : NaN;
}
