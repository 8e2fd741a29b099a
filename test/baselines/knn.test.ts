import { describe, expect, it } from "vitest";
import { knnBaseline } from "../../src/baselines/index.js";
import type { EmbeddedLabelData } from "../../src/eval/types.js";

// Five 2-d items (train 0-1, val 2-3, test 4); model 1 is observed only on train item 0, so most queries have no neighbour
// on which model 1 is observed.
function sparseData(): { data: EmbeddedLabelData; train: number[]; val: number[]; test: number[] } {
  const X = Float32Array.from([1, 0, 0, 1, 0.9, 0.1, 0.1, 0.9, 0.2, 0.8]);
  // item 0: m0=1, m1=1; item 1: m0=0; item 2 (val): m0=1, m1=1; item 3 (val): m0=0, m1=1;
  // item 4 (test): m0=1, m1=1
  const offsets = Int32Array.from([0, 2, 3, 5, 7, 9]);
  const model = Int32Array.from([0, 1, 0, 0, 1, 0, 1, 0, 1]);
  const y = Float32Array.from([1, 1, 0, 1, 1, 0, 1, 1, 1]);
  return { data: { X, dim: 2, nItems: 5, nModels: 2, offsets, model, y }, train: [0, 1], val: [2, 3], test: [4] };
}

describe("knn with few observed models", () => {
  it("prior strength 0: a model with no observed neighbour gets its train accuracy, not NaN", async () => {
    const { data, train, val, test } = sparseData();
    const fitted = await knnBaseline({ kGrid: [1], priorGrid: [0] }).fit(data, { train, val }, { seed: 0 });
    const p = Array.from(await fitted.predict(data.X, test));
    // nearest train item of the test query is item 1 (model 1 unobserved there): p_1 = train accuracy 1
    expect(p).toEqual([0, 1]);
    expect(fitted.description).not.toMatch(/NaN|Infinity/);
  });

  it("a prior strength of 0 in the grid is compared on val like the others (and wins here)", async () => {
    // k=1, s=0 predicts every observed val cell exactly once model 1 falls back to its train accuracy.
    const { data, train, val } = sparseData();
    const fitted = await knnBaseline({ kGrid: [1, 2], priorGrid: [0, 1] }).fit(data, { train, val }, { seed: 0 });
    expect(fitted.description).toMatch(/k=1, prior strength 0 /);
    expect(fitted.description).not.toMatch(/NaN|Infinity/);
  });
});
