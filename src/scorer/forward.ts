import { irtHeads, scoreRows } from "./irt-head.js";
import { mixtureForward } from "./mixture.js";
import type { ItemParams } from "./types.js";
import type { IrtMoeWeights } from "./weights.js";

/**
 * Alpha and beta of one query embedding (no tfjs: TypeScript, with the dense layers in WebAssembly for weights in an
 * arena, dense-kernel.ts; the same bits either way).
 *
 * @example
 * const { alpha, beta } = itemParamsOf(trained.weights, embedding);
 */
export function itemParamsOf(weights: IrtMoeWeights, x: Float32Array): ItemParams {
  return irtHeads(weights, mixtureForward(weights, x).mixed);
}

/**
 * Alpha and beta of the given item rows of `X` (n x inDim) with the temperature folded in (alpha / T, beta / T:
 * what an online learner or a probe bank sees), as an `n x abilityDim` row-major alpha table and an `n` beta
 * vector; rows not listed stay 0. No tfjs (as {@link itemParamsOf}).
 *
 * @example
 * const { alphas, betas } = foldedItemParams(trained, data.X, split.train); // alphas[i * d + k]
 */
export function foldedItemParams(
  trained: { weights: IrtMoeWeights; temperature: number },
  X: Float32Array,
  rows: readonly number[],
): { alphas: Float32Array; betas: Float32Array } {
  const { weights, temperature: T } = trained;
  const dim = weights.inDim;
  const d = weights.alpha.outDim;
  const n = X.length / dim;
  const alphas = new Float32Array(n * d);
  const betas = new Float32Array(n);
  for (const i of rows) {
    const q = itemParamsOf(weights, X.subarray(i * dim, (i + 1) * dim));
    for (let k = 0; k < d; k++) alphas[i * d + k] = q.alpha[k]! / T;
    betas[i] = q.beta / T;
  }
  return { alphas, betas };
}

/**
 * p(model correct) for the given item rows of a row-major embedding matrix `X` (n x inDim):
 * a `rows.length x nModels` row-major matrix. No tfjs (as {@link itemParamsOf}).
 *
 * @example
 * const p = predictItems(trained, data.X, split.test); // p[r * nModels + m]
 */
export function predictItems(
  trained: { weights: IrtMoeWeights; temperature: number },
  X: Float32Array,
  rows: readonly number[],
): Float32Array {
  const { weights, temperature } = trained;
  const dim = weights.inDim;
  const nModels = weights.models.length;
  const out = new Float32Array(rows.length * nModels);
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const x = X.subarray(i * dim, (i + 1) * dim);
    const params = itemParamsOf(weights, x);
    scoreRows(params, weights.theta, nModels, temperature, out.subarray(r * nModels, (r + 1) * nModels));
  }
  return out;
}
