import { describe, expect, it } from "vitest";
import {
  bestSingleModel,
  gapClosed,
  modelAccuracies,
  oracleScores,
  randomChoiceScores,
  routeByPrediction,
  singleModelScores,
} from "../../src/stats/routing-scores.js";
import { csr } from "./csr.js";

describe("routing", () => {
  const labels = csr([
    [1, null, 0], // model 1 unobserved
    [0, 1, 0],
    [null, null, null], // nothing observed
    [0.5, 0, 0],
  ]);

  it("chooses the observed candidate with the highest p and scores its label", () => {
    const pred = Float32Array.from([
      0.2,
      0.99,
      0.5, // 0.99 is unobserved: model 2 (0.5) wins
      0.9,
      0.1,
      0.1,
      0.5,
      0.5,
      0.5,
      0.3,
      0.3,
      0.1, // tie between models 0 and 1: the lower index wins
    ]);
    const out = routeByPrediction(labels, [0, 1, 2, 3], pred, 3);
    expect(Array.from(out.chosen)).toEqual([2, 0, -1, 0]);
    expect(Array.from(out.score)).toEqual([0, 0, NaN, 0.5]);
  });

  it("gives the reference rows", () => {
    expect(Array.from(modelAccuracies(labels, [0, 1], 3))).toEqual([0.5, 1, 0]);
    expect(bestSingleModel(labels, [0, 1], 3)).toBe(1);
    expect(Array.from(singleModelScores(labels, [0, 1, 3], 1))).toEqual([NaN, 1, 0]);
    expect(Array.from(randomChoiceScores(labels, [0, 1, 3]))).toEqual([0.5, 1 / 3, 0.5 / 3]);
    expect(Array.from(oracleScores(labels, [0, 1, 2, 3]))).toEqual([1, 1, NaN, 0.5]);
  });

  it("computes the gap closed", () => {
    expect(gapClosed(0.75, 0.7, 0.9)).toBeCloseTo(0.25, 12);
    expect(gapClosed(0.6, 0.7, 0.9)).toBeCloseTo(-0.5, 12);
    expect(gapClosed(0.7, 0.7, 0.7)).toBeNaN();
  });
});
