import { describe, expect, it } from "vitest";
import {
  correctProbes,
  ebAccuracy,
  predictiveInterval,
  shiftVariance,
  shrinkWeight,
  withCalibration,
} from "../../../bench/predict/calibrate.js";
import type { FoldResult } from "../../../bench/predict/fold-run.js";

const pt = (predicted: number, baseline: number, truth: number, n = 1e9) => ({ predicted, baseline, truth, n });

describe("predict calibration math", () => {
  it("shrinkWeight is the least-squares slope toward the baseline, clamped to [0, 1]", () => {
    expect(shrinkWeight([pt(0.8, 0.6, 0.7)])).toBeCloseTo(0.5, 12);
    expect(shrinkWeight([pt(0.8, 0.6, 0.8), pt(0.4, 0.5, 0.4)])).toBeCloseTo(1, 12);
    expect(shrinkWeight([pt(0.8, 0.6, 0.5)])).toBe(0);
    expect(shrinkWeight([pt(0.8, 0.6, 1.2)])).toBe(1);
  });
  it("shiftVariance removes the binomial noise of the observed accuracy", () => {
    expect(shiftVariance([pt(0.5, 0.5, 0.7, 100)])).toBeCloseTo(0.04 - 0.0025, 12);
    expect(shiftVariance([pt(0.5, 0.5, 0.5, 100)])).toBe(0);
  });
  it("ebAccuracy is a beta-binomial update with strength from the prior variance", () => {
    expect(ebAccuracy(0.6, (0.6 * 0.4) / 11, 7, 10)).toBeCloseTo(0.65, 12);
    expect(ebAccuracy(0.6, 0, 0, 10)).toBeCloseTo((0 + 600) / 1010, 12);
    expect(ebAccuracy(0.6, 1, 7, 10)).toBeCloseTo((7 + 0.6) / 11, 12);
  });
  it("correctProbes inverts the probe-accuracy baseline", () => {
    const s = 11.5;
    expect(correctProbes((7 + s * 0.4) / (10 + s), 10, 0.4, s)).toBe(7);
  });
  it("predictiveInterval covers 95% of a normal of the stated variance", () => {
    const [lo, hi] = predictiveInterval(0.5, 0.01, 1e12);
    expect(lo).toBeCloseTo(0.5 - 0.196, 3);
    expect(hi).toBeCloseTo(0.5 + 0.196, 3);
  });
  it("withCalibration learns each fold only from the other categories", () => {
    const fold = (category: string, truth: number, irt: number): FoldResult => ({
      category,
      seed: 1,
      nTest: 1e9,
      nProbePool: 100,
      priorStrength: 10,
      knownScale: null,
      bestEpoch: 1,
      epochs: 1,
      trainSeconds: 0,
      models: [
        {
          model: "m",
          nTest: 1e9,
          truth,
          meanAccuracy: 0.5,
          embedllmMf: 0.5,
          irt: { 0: { accuracy: irt, lo: irt, hi: irt, probes: 0 } },
          probe: {},
        },
      ],
    });
    // On "a" and "b" the scorer's deviation from the baseline is right; on "c" it is useless (truth = baseline)
    const out = withCalibration([fold("a", 0.7, 0.7), fold("b", 0.3, 0.3), fold("c", 0.5, 0.9)], [0]);
    // a: learns from b (w = 1) and c (w = 0 there): slope (0.04 + 0) / (0.04 + 0.16) = 0.2
    expect(out[0]!.calibration!.shrinkWeight).toBeCloseTo(0.2, 12);
    expect(out[0]!.models[0]!.cal![0]!.accuracy).toBeCloseTo(0.5 + 0.2 * 0.2, 12);
    // c: learns from a and b only, where the scorer is exact: w = 1, no shift variance
    expect(out[2]!.calibration).toEqual({ shrinkWeight: 1, shiftVariance: 0 });
    expect(out[2]!.models[0]!.cal![0]!.accuracy).toBeCloseTo(0.9, 12);
  });
});
