/**
 * A differentiable model that maps one query embedding to one logit per model. The baselines
 * that learn by gradient (logistic regression, linear MIRT, EmbedLLM-style MF) implement it; the
 * shared {@link trainLogitModel} fits any of them with Adam and early stopping.
 */
export interface LogitModel {
  /** Parameter tensors, flat. The trainer updates them in place. */
  readonly params: Float32Array[];
  /** Which params get the L2 penalty (same order as `params`). */
  readonly decay: readonly boolean[];
  readonly nModels: number;
  /** Writes the `nModels` logits of embedding `x` into `out`; may cache what backward needs. */
  forward(x: Float32Array, out: Float64Array): void;
  /**
   * Adds to `grads` the gradient of the loss for the item last passed to `forward`, given
   * `gLogit[m]` = dLoss/dlogit_m (0 for unobserved models).
   */
  backward(x: Float32Array, gLogit: Float64Array, grads: Float32Array[]): void;
}

/** Dot product of `a[aOff..aOff+n)` and `b[bOff..bOff+n)`. */
export function dot(a: Float32Array, aOff: number, b: Float32Array, bOff: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    s0 += a[aOff + k]! * b[bOff + k]!;
    s1 += a[aOff + k + 1]! * b[bOff + k + 1]!;
    s2 += a[aOff + k + 2]! * b[bOff + k + 2]!;
    s3 += a[aOff + k + 3]! * b[bOff + k + 3]!;
  }
  for (; k < n; k++) s0 += a[aOff + k]! * b[bOff + k]!;
  return s0 + s1 + s2 + s3;
}

/** a[aOff..aOff+n) += s * b[bOff..bOff+n) */
export function axpy(a: Float32Array, aOff: number, s: number, b: Float32Array, bOff: number, n: number): void {
  for (let k = 0; k < n; k++) a[aOff + k]! += s * b[bOff + k]!;
}
