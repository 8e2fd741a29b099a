import { describe, expect, it } from "vitest";
import {
  AT_K,
  atKVersusRandom,
  chooseRuleByError,
  errorExcess,
  renderCalibrationLodo,
  versusRandom,
  type AtK,
  type CalibrationLodoResult,
  type CalibrationPair,
} from "../../../bench/online/calibration-lodo-report.js";

/** One run's measures: the same error and routing score after every k. */
const run = (err: number, route: number): AtK => ({
  err: AT_K.map(() => err),
  route: AT_K.map(() => route),
});

/** A pair where rule "a" is `da` off random order's error and rule "b" `db`, in every run. */
function pair(dataset: string, seed: number, da: number, db: number): CalibrationPair {
  const random = [run(0.1, 0.5), run(0.12, 0.52)];
  const shifted = (d: number) => random.map((x) => run(x.err[0]! + d, x.route[0]! - d));
  const atK = { a: shifted(da), b: shifted(db), random };
  return {
    dataset,
    seed,
    model: `m${seed}`,
    val: { a: [3, 4], b: [5, 6] },
    test: { a: [3, 4], b: [5, 6] },
    randomVal: [4, 4],
    randomTest: [4, 4],
    atK: { val: atK, test: atK },
  };
}

const result = (pairs: CalibrationPair[]): CalibrationLodoResult => ({
  datasets: [...new Set(pairs.map((p) => p.dataset))],
  seeds: [1, 2, 3],
  orders: 2,
  encoder: "static",
  rules: [
    { id: "a", label: "rule a", bounded: true },
    { id: "b", label: "rule b", bounded: true },
  ],
  pairs,
  seconds: 1,
});

describe("calibration-lodo error after k probes (bench/online/calibration-lodo-report.ts)", () => {
  it("gives the paired difference from random order, with an interval around it", () => {
    const pairs = [pair("x", 1, 0.02, 0), pair("x", 2, 0.04, 0), pair("x", 3, 0.03, 0)];
    const at = atKVersusRandom(pairs, "a", "err");
    expect(at.map((x) => x.k)).toEqual([...AT_K]);
    for (const x of at) {
      expect(x.random).toBeCloseTo(0.11, 10);
      expect(x.meanDiff).toBeCloseTo(0.03, 10);
      expect(x.ci[0]).toBeGreaterThanOrEqual(0.02 - 1e-12);
      expect(x.ci[1]).toBeLessThanOrEqual(0.04 + 1e-12);
      expect(x.ci[0]).toBeLessThan(x.ci[1]);
    }
    // the routing score moves the other way in these pairs
    expect(atKVersusRandom(pairs, "a", "route")[0]!.meanDiff).toBeCloseTo(-0.03, 10);
  });

  it("chooses the rule with the smallest worst validation error excess, not the smallest mean", () => {
    // rule a: excess 0.05 on x, -0.04 on y (mean 0.005, worst 0.05); rule b: 0.02 on both (worst 0.02)
    const pairs = [pair("x", 1, 0.05, 0.02), pair("y", 1, -0.04, 0.02)];
    expect(errorExcess([pairs[0]!], "a")).toBeCloseTo(0.05, 10);
    expect(chooseRuleByError(result(pairs), ["x", "y"])).toBe("b");
    // on y alone, a is closer than random and chosen
    expect(chooseRuleByError(result(pairs), ["y"])).toBe("a");
  });

  it("keeps the first-crossing figures and renders both measures", () => {
    const pairs = [pair("x", 1, 0.01, 0.02), pair("y", 1, 0.01, -0.01), pair("y", 2, 0.0, -0.02)];
    expect(versusRandom(pairs, "a").meanDiff).toBeCloseTo(-0.5, 10);
    const md = renderCalibrationLodo(result(pairs));
    expect(md).toContain("mean paired difference, probes");
    expect(md).toContain("after 50: random; rule - random [95% CI]");
    expect(md).toContain("routing score after k probes");
  });
});
