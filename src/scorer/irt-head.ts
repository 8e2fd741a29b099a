import type { ItemParams } from "./types.js";
import { denseFor } from "./dense-kernel.js";
import type { IrtMoeWeights } from "./weights.js";
import { sigmoid } from "../util/maths.js";

/** alpha_q = mixed W_alpha + b_alpha, beta_q = mixed w_beta + b_beta (dense layers by `denseFor`, dense-kernel.ts). */
export function irtHeads(w: IrtMoeWeights, mixed: Float32Array): ItemParams {
  const dense = denseFor(w);
  const alpha = dense(w.alpha, mixed);
  const beta = dense(w.beta, mixed)[0]!;
  return { alpha, beta };
}

/** Logit of p(m correct on q) = alpha_q . theta_m - beta_q for model row `m` of `theta`. */
export function irtLogit(params: ItemParams, theta: Float32Array, m: number): number {
  const { alpha, beta } = params;
  const d = alpha.length;
  const base = m * d;
  let z = -beta;
  for (let k = 0; k < d; k++) z += alpha[k]! * theta[base + k]!;
  return z;
}

/**
 * p for the given model rows (default: all), with temperature scaling: sigmoid(logit / T).
 * Alpha and beta are computed once by the caller and reused for every candidate.
 */
export function scoreRows(
  params: ItemParams,
  theta: Float32Array,
  rows: readonly number[] | number,
  temperature = 1,
  out?: Float32Array,
): Float32Array {
  const n = typeof rows === "number" ? rows : rows.length;
  const res = out ?? new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const m = typeof rows === "number" ? i : rows[i]!;
    res[i] = sigmoid(irtLogit(params, theta, m) / temperature);
  }
  return res;
}
