import { createRng } from "../../src/util/random.js";
import type { EmbeddedLabelData } from "../../src/eval/types.js";

/**
 * Synthetic embedded labels drawn from a known linear IRT model: x ~ N(0, I) (then normalised),
 * alpha = A x, beta = b . x, p = sigmoid(alpha . theta_m - beta). `observe` is the share of
 * observed cells. Returns the data and the true probabilities (dense).
 */
export function plantedData(options: {
  nItems: number;
  dim: number;
  nModels: number;
  d?: number;
  observe?: number;
  scale?: number;
  seed?: number;
}): { data: EmbeddedLabelData; truth: Float64Array; split: { train: number[]; val: number[]; test: number[] } } {
  const { nItems, dim, nModels, d = 3, observe = 1, scale = 3, seed = 7 } = options;
  const rng = createRng(seed);
  const A = Float64Array.from({ length: d * dim }, () => rng.normal());
  const b = Float64Array.from({ length: dim }, () => rng.normal() * 0.5);
  const theta = Float64Array.from({ length: nModels * d }, () => rng.normal());
  const X = new Float32Array(nItems * dim);
  const truth = new Float64Array(nItems * nModels);
  const offsets = new Int32Array(nItems + 1);
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < nItems; i++) {
    let norm = 0;
    for (let k = 0; k < dim; k++) {
      X[i * dim + k] = rng.normal();
      norm += X[i * dim + k]! ** 2;
    }
    for (let k = 0; k < dim; k++) X[i * dim + k]! /= Math.sqrt(norm);
    const alpha = new Float64Array(d);
    for (let j = 0; j < d; j++) for (let k = 0; k < dim; k++) alpha[j]! += A[j * dim + k]! * X[i * dim + k]!;
    let beta = 0;
    for (let k = 0; k < dim; k++) beta += b[k]! * X[i * dim + k]!;
    for (let m = 0; m < nModels; m++) {
      let z = -beta;
      for (let j = 0; j < d; j++) z += alpha[j]! * theta[m * d + j]!;
      const p = 1 / (1 + Math.exp(-scale * z));
      truth[i * nModels + m] = p;
      if (rng.next() < observe || m === 0) {
        model.push(m);
        y.push(rng.next() < p ? 1 : 0);
      }
    }
    offsets[i + 1] = model.length;
  }
  const split = { train: [] as number[], val: [] as number[], test: [] as number[] };
  for (let i = 0; i < nItems; i++) {
    const u = (i * 0.6180339887) % 1;
    (u < 0.7 ? split.train : u < 0.85 ? split.val : split.test).push(i);
  }
  return {
    data: { X, dim, nItems, nModels, offsets, model: Int32Array.from(model), y: Float32Array.from(y) },
    truth,
    split,
  };
}
