import type { DenseWeights, ExpertWeights } from "./weights.js";

/**
 * y = x W + b for one vector (plain typed arrays). The inner loop walks contiguous rows of W, eight
 * input rows at a time into a float64 accumulator, so each partial sum is loaded and stored once per
 * eight multiply-adds (2-3x faster than one row at a time in V8; docs/benchmarks.md).
 */
export function denseForward(
  layer: DenseWeights,
  x: Float32Array,
  out: Float32Array = new Float32Array(layer.outDim),
): Float32Array {
  const { inDim, outDim: n, W, b } = layer;
  const acc = new Float64Array(n);
  for (let j = 0; j < n; j++) acc[j] = b[j]!;
  let i = 0;
  for (; i + 7 < inDim; i += 8) {
    const x0 = x[i]!,
      x1 = x[i + 1]!,
      x2 = x[i + 2]!,
      x3 = x[i + 3]!;
    const x4 = x[i + 4]!,
      x5 = x[i + 5]!,
      x6 = x[i + 6]!,
      x7 = x[i + 7]!;
    const r0 = i * n,
      r1 = r0 + n,
      r2 = r1 + n,
      r3 = r2 + n,
      r4 = r3 + n,
      r5 = r4 + n,
      r6 = r5 + n,
      r7 = r6 + n;
    for (let j = 0; j < n; j++) {
      acc[j] +=
        x0 * W[r0 + j]! +
        x1 * W[r1 + j]! +
        x2 * W[r2 + j]! +
        x3 * W[r3 + j]! +
        x4 * W[r4 + j]! +
        x5 * W[r5 + j]! +
        x6 * W[r6 + j]! +
        x7 * W[r7 + j]!;
    }
  }
  for (; i < inDim; i++) {
    const xi = x[i]!;
    const row = i * n;
    for (let j = 0; j < n; j++) acc[j] += xi * W[row + j]!;
  }
  for (let j = 0; j < n; j++) out[j] = acc[j]!;
  return out;
}

/**
 * One expert at inference: relu(x W1 + b1) W2 + b2 (dropout is a training-time op); `dense` computes each layer
 * (default {@link denseForward}; the scorer passes its weights' kernel, dense-kernel.ts).
 */
export function expertForward(
  expert: ExpertWeights,
  x: Float32Array,
  hidden?: Float32Array,
  out?: Float32Array,
  dense: (layer: DenseWeights, x: Float32Array, out?: Float32Array) => Float32Array = denseForward,
): Float32Array {
  const h = dense(expert.l1, x, hidden);
  for (let j = 0; j < h.length; j++) if (h[j]! < 0) h[j] = 0;
  return dense(expert.l2, h, out);
}
