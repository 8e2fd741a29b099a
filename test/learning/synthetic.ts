/** Synthetic IRT worlds for the learning tests: items (alpha, beta), abilities, sampled outcomes. */
import { seededRng } from "../../src/learning/index.js";
import { sigmoid } from "../../src/learning/posterior.js";

export interface World {
  d: number;
  alphas: Float32Array;
  betas: Float32Array;
  n: number;
  thetas: Float64Array[];
}

export function makeWorld(seed: number, d: number, nItems: number, nModels: number, abilitySpread = 1): World {
  const rng = seededRng(seed);
  const alphas = new Float32Array(nItems * d);
  const betas = new Float32Array(nItems);
  for (let i = 0; i < nItems; i++) {
    for (let k = 0; k < d; k++) alphas[i * d + k] = (rng.normal() * 1.5) / Math.sqrt(d) + (k === 0 ? 1 : 0);
    betas[i] = rng.normal();
  }
  const thetas = Array.from({ length: nModels }, () =>
    Float64Array.from({ length: d }, () => rng.normal() * abilitySpread),
  );
  return { d, alphas, betas, n: nItems, thetas };
}

export function trueP(w: World, theta: ArrayLike<number>, i: number): number {
  let z = -w.betas[i]!;
  for (let k = 0; k < w.d; k++) z += w.alphas[i * w.d + k]! * theta[k]!;
  return sigmoid(z);
}

export function trueAccuracy(w: World, theta: ArrayLike<number>, items: readonly number[]): number {
  return items.reduce((s, i) => s + trueP(w, theta, i), 0) / items.length;
}

export const alphaOf = (w: World, i: number): Float32Array => w.alphas.subarray(i * w.d, (i + 1) * w.d);
