import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import {
  calibratedAccuracy,
  ebAccuracy,
  predictiveInterval,
  shiftVarianceAt,
  type PredictCalibration,
} from "../../src/learning/interval-calibration.js";
import { thrownBy } from "../errors.js";

const cal: PredictCalibration = {
  shrinkWeight: 0.5,
  shiftVariance: { "0": 0.01, "10": 0.006, "50": 0.002 },
  fittedOn: "t",
};

describe("accuracy-prediction calibration (src/learning/predict-calibration.ts)", () => {
  it("interpolates the shift variance between the fitted probe counts and holds it outside them", () => {
    expect(shiftVarianceAt(cal, 0)).toBe(0.01);
    expect(shiftVarianceAt(cal, 5)).toBeCloseTo(0.008, 12);
    expect(shiftVarianceAt(cal, 30)).toBeCloseTo(0.004, 12);
    expect(shiftVarianceAt(cal, 200)).toBe(0.002);
  });

  it("shrinks the scorer's figure toward the catalog accuracy, and probes move it by empirical Bayes", () => {
    const none = calibratedAccuracy({ calibration: cal, scorer: 0.8, baseline: 0.6, correct: 0, asked: 0, items: 400 });
    expect(none.accuracy).toBeCloseTo(0.7, 12);
    // the interval is predictive: tau^2 = 0.01 plus the binomial noise of 400 items
    const half = 1.959964 * Math.sqrt(0.01 + (0.7 * 0.3) / 400);
    expect(none.interval[0]).toBeCloseTo(0.7 - half, 9);
    expect(none.interval[1]).toBeCloseTo(0.7 + half, 9);
    const probed = calibratedAccuracy({
      calibration: cal,
      scorer: 0.8,
      baseline: 0.6,
      correct: 2,
      asked: 10,
      items: 400,
    });
    expect(probed.accuracy).toBeCloseTo(ebAccuracy(0.7, 0.01, 2, 10), 12);
    expect(probed.accuracy).toBeLessThan(0.7);
    expect(probed.interval[1] - probed.interval[0]).toBeLessThan(none.interval[1] - none.interval[0]);
  });

  it("a narrower level gives a narrower interval, clipped to [0, 1]", () => {
    const [lo95, hi95] = predictiveInterval(0.5, 0.01, 100);
    const [lo80, hi80] = predictiveInterval(0.5, 0.01, 100, 0.8);
    expect(hi80 - lo80).toBeLessThan(hi95 - lo95);
    expect((hi80 - lo80) / 2).toBeCloseTo(1.2816 * Math.sqrt(0.01 + 0.25 / 100), 3);
    expect(predictiveInterval(0.99, 0.05, 10)[1]).toBe(1);
  });

  it("refuses a calibration that is not one, naming the field", () => {
    const e = thrownBy(ValidationError, () =>
      calibratedAccuracy({
        calibration: { ...cal, shiftVariance: { "10": 0.01 } },
        scorer: 0.5,
        baseline: 0.5,
        correct: 0,
        asked: 0,
        items: 10,
      }),
    );
    expect(e.message).toContain("probe count 0");
  });
});
