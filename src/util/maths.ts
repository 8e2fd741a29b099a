/**
 * Small numeric primitives shared by the scorer, the learner, the baselines and the router: one definition each.
 */

/**
 * The logistic function 1 / (1 + e^-z), computed without overflow for large |z|.
 *
 * @example
 * ```ts
 * sigmoid(0); // 0.5
 * sigmoid(-800); // a tiny positive number, not NaN
 * ```
 */
export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/**
 * The logit log(p / (1 - p)) of `p` clipped to [eps, 1 - eps], so a rate of 0 or 1 gives a finite start or offset.
 *
 * @example
 * ```ts
 * logit(0.5, 1e-4); // 0
 * logit(1, 1e-4); // log(9999), about 9.21
 * ```
 */
export function logit(p: number, eps: number): number {
  const q = Math.min(1 - eps, Math.max(eps, p));
  return Math.log(q / (1 - q));
}

/** log(sigmoid(z)) without overflow. */
export function logSigmoid(z: number): number {
  return z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z));
}
