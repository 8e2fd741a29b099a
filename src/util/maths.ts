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

/** log(sigmoid(z)) without overflow. */
export function logSigmoid(z: number): number {
  return z >= 0 ? -Math.log1p(Math.exp(-z)) : z - Math.log1p(Math.exp(z));
}
