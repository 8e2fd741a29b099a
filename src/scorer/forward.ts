import { irtHeads, scoreRows } from "./irt-head.js";
import { mixtureForward } from "./mixture.js";
import type { ItemParams } from "./types.js";
import type { IrtMoeWeights } from "./weights.js";

/**
 * Alpha and beta of one query embedding (pure TypeScript; no tfjs).
 *
 * @example
 * const { alpha, beta } = itemParamsOf(trained.weights, embedding);
 */
export function itemParamsOf(weights: IrtMoeWeights, x: Float32Array): ItemParams {
  return irtHeads(weights, mixtureForward(weights, x).mixed);
}

/**
 * p(model correct) for the given item rows of a row-major embedding matrix `X` (n x inDim):
 * a `rows.length x nModels` row-major matrix. Pure TypeScript.
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
