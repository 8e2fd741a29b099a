import { describe, expect, it } from "vitest";
import { itemBootstrapCi, pairedBootstrap } from "../../../bench/online/sim.js";
import { seededRng } from "../../../src/learning/index.js";
import { thrownBy } from "../../errors.js";

/** Per-item oracle-minus-static differences in {-1, 0, 1}, mean about 0.08 over 1,200 items. */
function diffs(seed: number, n = 1200): Float64Array {
  const rng = seededRng(seed);
  return Float64Array.from({ length: n }, () => {
    const u = rng.next();
    return u < 0.14 ? 1 : u < 0.2 ? -1 : 0;
  });
}
const mean = (v: ArrayLike<number>) => Array.from(v).reduce((a, b) => a + b, 0) / v.length;
const width = ([lo, hi]: [number, number]) => hi - lo;

describe("itemBootstrapCi: the online benchmark's gap interval pooled over seeds", () => {
  it("seeds that repeat the same items give the one-seed interval, not one sqrt(seeds) times narrower", () => {
    const d = diffs(1);
    const one = itemBootstrapCi([d], 1000, 7);
    const five = itemBootstrapCi([d, d, d, d, d], 1000, 7);
    expect(five[0]).toBeCloseTo(one[0], 12);
    expect(five[1]).toBeCloseTo(one[1], 12);
    // About +-1.96 sd of the mean of 1,200 such items (sd of the mean 0.0103): width near 0.04.
    expect(width(one)).toBeGreaterThan(0.03);
    expect(width(one)).toBeLessThan(0.05);
    expect(one[0]).toBeLessThan(mean(d));
    expect(one[1]).toBeGreaterThan(mean(d));
  });

  it("pairs the items across seeds: seeds whose per-item differences cancel give exactly [0, 0]", () => {
    const d = diffs(2);
    const opposite = Float64Array.from(d, (v) => -v);
    expect(itemBootstrapCi([d, opposite], 500, 3)).toEqual([0, 0]);
  });

  it("averages different seeds per item: the interval is that of the per-item mean over seeds", () => {
    const seeds = [diffs(3), diffs(4), diffs(5)];
    const perItem = Float64Array.from(seeds[0]!, (_, k) => (seeds[0]![k]! + seeds[1]![k]! + seeds[2]![k]!) / 3);
    const pooled = itemBootstrapCi(seeds, 1000, 9);
    const direct = itemBootstrapCi([perItem], 1000, 9);
    expect(pooled[0]).toBeCloseTo(direct[0], 12);
    expect(pooled[1]).toBeCloseTo(direct[1], 12);
    const centre = mean(seeds.map(mean));
    expect(pooled[0]).toBeLessThan(centre);
    expect(pooled[1]).toBeGreaterThan(centre);
  });

  it("is the paired bootstrap with one seed, deterministic per seed", () => {
    const a = Float64Array.from(diffs(6), (v) => (v < 0 ? 1 : 0));
    const b = Float64Array.from(diffs(6), (v) => (v > 0 ? 1 : 0));
    expect(pairedBootstrap(a, b, 1000, 11)).toEqual(
      itemBootstrapCi([Float64Array.from(a, (v, i) => b[i]! - v)], 1000, 11),
    );
    expect(itemBootstrapCi([diffs(7)], 1000, 11)).toEqual(itemBootstrapCi([diffs(7)], 1000, 11));
  });

  it("refuses seeds of different lengths (they must score the same items)", () => {
    const err = thrownBy(RangeError, () => itemBootstrapCi([diffs(1, 10), diffs(2, 11)], 100, 1));
    expect(err.message).toMatch(/seed 1 has 11 items, seed 0 has 10/);
    thrownBy(RangeError, () => itemBootstrapCi([], 100, 1));
  });
});
