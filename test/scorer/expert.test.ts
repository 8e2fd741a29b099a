import { describe, expect, it } from "vitest";
import { denseForward } from "../../src/scorer/expert.js";
import { trainingRng } from "../../src/util/random.js";

describe("denseForward", () => {
  it("equals the textbook x W + b for input sizes on and off the 8-row unroll", () => {
    const rng = trainingRng(5);
    for (const [inDim, outDim] of [
      [1, 3],
      [7, 5],
      [8, 4],
      [13, 9],
      [64, 17],
    ] as const) {
      const W = Float32Array.from({ length: inDim * outDim }, () => rng.normal());
      const b = Float32Array.from({ length: outDim }, () => rng.normal());
      const x = Float32Array.from({ length: inDim }, () => rng.normal());
      const y = denseForward({ inDim, outDim, W, b }, x);
      for (let j = 0; j < outDim; j++) {
        let ref = b[j]!;
        for (let i = 0; i < inDim; i++) ref += x[i]! * W[i * outDim + j]!;
        expect(y[j]).toBeCloseTo(ref, 5);
      }
    }
  });
});
