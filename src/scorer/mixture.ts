import { denseFor } from "./dense-kernel.js";
import { expertForward } from "./expert.js";
import type { IrtMoeWeights } from "./weights.js";

/** Softmax in place; returns its argument. */
export function softmaxInPlace(z: Float32Array): Float32Array {
  let max = -Infinity;
  for (let i = 0; i < z.length; i++) if (z[i]! > max) max = z[i]!;
  let sum = 0;
  for (let i = 0; i < z.length; i++) {
    const e = Math.exp(z[i]! - max);
    z[i] = e;
    sum += e;
  }
  for (let i = 0; i < z.length; i++) z[i]! /= sum;
  return z;
}

/** Result of the mixture for one query. */
export interface MixtureOutput {
  /** Softmax gate over the K routed experts. */
  readonly gate: Float32Array;
  /** shared(e) + sum_k gate_k * expert_k(e): the O-vector feeding the IRT heads. */
  readonly mixed: Float32Array;
}

/** The gated mixture of experts for one embedding (plain typed arrays; dense layers by `denseFor`, dense-kernel.ts). */
export function mixtureForward(w: IrtMoeWeights, x: Float32Array): MixtureOutput {
  const dense = denseFor(w);
  const gate = softmaxInPlace(dense(w.gate, x));
  const hidden = new Float32Array(w.shared.l1.outDim);
  const mixed = expertForward(w.shared, x, hidden, undefined, dense);
  const tmp = new Float32Array(mixed.length);
  for (let k = 0; k < w.experts.length; k++) {
    const g = gate[k]!;
    expertForward(w.experts[k]!, x, hidden, tmp, dense);
    for (let j = 0; j < mixed.length; j++) mixed[j]! += g * tmp[j]!;
  }
  return { gate, mixed };
}
