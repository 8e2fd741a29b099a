import type { DenseWeights, ExpertWeights } from "./weights.js";

/**
 * y = x W + b for one vector (plain typed arrays). Loops over the input so the inner loop
 * walks a contiguous row of W.
 */
export function denseForward(layer: DenseWeights, x: Float32Array, out: Float32Array = new Float32Array(layer.outDim)): Float32Array {
  const { inDim, outDim, W, b } = layer;
  out.set(b);
  for (let i = 0; i < inDim; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const row = i * outDim;
    for (let j = 0; j < outDim; j++) out[j]! += xi * W[row + j]!;
  }
  return out;
}

/** One expert at inference: relu(x W1 + b1) W2 + b2 (dropout is a training-time op). */
export function expertForward(expert: ExpertWeights, x: Float32Array, hidden?: Float32Array, out?: Float32Array): Float32Array {
  const h = denseForward(expert.l1, x, hidden);
  for (let j = 0; j < h.length; j++) if (h[j]! < 0) h[j] = 0;
  return denseForward(expert.l2, h, out);
}
