import { describe, expect, it } from "vitest";
import {
  brierScore,
  correctnessMetrics,
  expectedCalibrationError,
  meanSd,
  nanMean,
  rocAucWithTies,
  thresholdAccuracy,
} from "../../src/stats/metrics.js";
import { csr } from "./csr.js";

describe("rocAucWithTies", () => {
  it("gives tied scores their average rank", () => {
    // pos {0.4, 0.8} vs neg {0.1, 0.4}: 1 + 1 + 1 + 0.5 (the tie) = 3.5 of 4 pairs
    expect(rocAucWithTies([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1])).toBeCloseTo(0.875, 12);
  });
  it("is 0.5 for a constant predictor and 1 / 0 for perfect / reversed ranking", () => {
    expect(rocAucWithTies([0.3, 0.3, 0.3, 0.3], [0, 1, 0, 1])).toBe(0.5);
    expect(rocAucWithTies([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])).toBe(1);
    expect(rocAucWithTies([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])).toBe(0);
  });
  it("matches the pairwise definition on a random sample with many ties", () => {
    const p = [0.2, 0.5, 0.5, 0.5, 0.7, 0.1, 0.7, 0.2, 0.9, 0.5];
    const y = [0, 1, 0, 1, 1, 0, 0, 1, 1, 0];
    let wins = 0;
    let pairs = 0;
    for (let i = 0; i < p.length; i++)
      for (let j = 0; j < p.length; j++) {
        if (y[i] === 1 && y[j] === 0) {
          pairs++;
          wins += p[i]! > p[j]! ? 1 : p[i] === p[j] ? 0.5 : 0;
        }
      }
    expect(rocAucWithTies(p, y)).toBeCloseTo(wins / pairs, 12);
  });
  it("treats graded labels >= 0.5 as positive and is NaN with one class", () => {
    expect(rocAucWithTies([0.1, 0.9], [0.4, 0.6])).toBe(1);
    expect(rocAucWithTies([0.1, 0.9], [1, 1])).toBeNaN();
  });
});

describe("expectedCalibrationError", () => {
  it("weights each bin's |mean p - mean y| by its share of pairs", () => {
    // bin of 0.1: |0.1 - 0| x 1/2; bin of 0.9: |0.9 - 0.5| x 1/2
    expect(expectedCalibrationError([0.1, 0.1, 0.9, 0.9], [0, 0, 1, 0])).toBeCloseTo(0.25, 12);
  });
  it("uses 15 equal-width bins: 0.05 and 0.06 share bin 0, 1/15 opens bin 1, p = 1 is in the last bin", () => {
    // same bin: |(0.05 + 0.06)/2 - 0.5| = 0.445
    expect(expectedCalibrationError([0.05, 0.06], [0, 1])).toBeCloseTo(0.445, 12);
    // different bins (0.06 in bin 0, 0.07 in bin 1): each |p - y| / 2
    expect(expectedCalibrationError([0.06, 0.07], [0, 1])).toBeCloseTo(0.06 / 2 + 0.93 / 2, 12);
    expect(expectedCalibrationError([1, 0.95], [1, 0])).toBeCloseTo(Math.abs(0.975 - 0.5), 12);
  });
  it("is 0 when every bin is calibrated", () => {
    expect(expectedCalibrationError([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0])).toBe(0);
  });
});

describe("brier and thresholded accuracy", () => {
  it("Brier uses the raw (graded) label", () => {
    expect(brierScore([0.2, 0.9], [0, 0.5])).toBeCloseTo((0.04 + 0.16) / 2, 12);
  });
  it("accuracy thresholds both p and y at 0.5", () => {
    expect(thresholdAccuracy([0.5, 0.49, 0.9, 0.1], [1, 0, 0.4, 0.6])).toBe(0.5);
  });
});

describe("correctnessMetrics", () => {
  it("uses only the observed cells", () => {
    const labels = csr([
      [1, null, 0],
      [null, 1, 0],
    ]);
    // predictions for unobserved cells are nonsense and must not count
    const pred = Float32Array.from([0.8, 0.0, 0.3, 1.0, 0.7, 0.2]);
    const m = correctnessMetrics(labels, [0, 1], pred, 3);
    expect(m.n).toBe(4);
    expect(m.accuracy).toBe(1);
    expect(m.auc).toBe(1);
    expect(m.brier).toBeCloseTo((0.04 + 0.09 + 0.09 + 0.04) / 4, 6);
  });
});

describe("nanMean and meanSd", () => {
  it("skips non-finite values", () => {
    expect(nanMean([1, NaN, 0])).toBe(0.5);
    expect(nanMean([NaN])).toBeNaN();
  });
  it("gives the sample standard deviation", () => {
    expect(meanSd([1, 2, 3])).toEqual({ mean: 2, sd: 1 });
    expect(meanSd([4])).toEqual({ mean: 4, sd: 0 });
  });
});
