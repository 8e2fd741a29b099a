import { describe, expect, it } from "vitest";
import { bootstrapDiffCi, bootstrapMeanCi, bootstrapPlan, percentileInterval } from "../../src/stats/bootstrap.js";
import { createRng } from "../../src/util/random.js";

const rng = createRng(3);
const a = Float64Array.from({ length: 400 }, () => (rng.next() < 0.7 ? 1 : 0));
const b = Float64Array.from(a, (v) => (rng.next() < 0.1 ? 1 - v : v));
const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;

describe("paired bootstrap", () => {
  it("gives a 95% CI that contains the estimate", () => {
    const plan = bootstrapPlan(a.length, 1000, 11);
    const [lo, hi] = bootstrapMeanCi(a, plan);
    expect(lo).toBeLessThan(mean(a));
    expect(hi).toBeGreaterThan(mean(a));
    // binomial SE at n = 400, p ~ 0.7 is ~0.023: the interval is about +-1.96 SE
    expect(hi - lo).toBeGreaterThan(0.06);
    expect(hi - lo).toBeLessThan(0.12);
  });

  it("is deterministic per seed and changes with the seed", () => {
    const ci1 = bootstrapMeanCi(a, bootstrapPlan(a.length, 1000, 11));
    const ci2 = bootstrapMeanCi(a, bootstrapPlan(a.length, 1000, 11));
    const ci3 = bootstrapMeanCi(a, bootstrapPlan(a.length, 1000, 12));
    expect(ci1).toEqual(ci2);
    expect(ci1).not.toEqual(ci3);
  });

  it("pairs the items: identical vectors differ by exactly 0, and the paired CI is narrower than unpaired", () => {
    const plan = bootstrapPlan(a.length, 1000, 5);
    expect(bootstrapDiffCi(a, a, plan)).toEqual([0, 0]);
    const [lo, hi] = bootstrapDiffCi(a, b, plan);
    const d = mean(a) - mean(b);
    expect(lo).toBeLessThanOrEqual(d);
    expect(hi).toBeGreaterThanOrEqual(d);
    const [alo, ahi] = bootstrapMeanCi(a, plan);
    expect(hi - lo).toBeLessThan(ahi - alo);
  });

  it("skips NaN items (a model unobserved on an item) in each resample", () => {
    const v = Float64Array.from([1, NaN, 1, NaN]);
    expect(bootstrapMeanCi(v, bootstrapPlan(4, 200, 1))).toEqual([1, 1]);
  });

  it("rejects a vector of the wrong length", () => {
    expect(() => bootstrapMeanCi(a.subarray(1), bootstrapPlan(a.length, 100, 1))).toThrow(/400 items/);
  });

  it("interpolates percentiles", () => {
    expect(percentileInterval([0, 1, 2, 3, 4], 0.5)).toEqual([1, 3]);
  });
});
