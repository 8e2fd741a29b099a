import { describe, expect, it } from "vitest";
import {
  betaPriorStrength,
  categoryFolds,
  foldFigures,
  observedAccuracies,
  probeAccuracy,
} from "../../../bench/predict/category-folds.js";
import type { FoldResult, ModelOutcome } from "../../../bench/predict/fold-run.js";
import { reportedPairs, summarisePredict } from "../../../bench/predict/report.js";
import { kendall, midRanks, spearman } from "../../../src/eval/rank-correlation.js";

describe("rank correlations", () => {
  it("match hand-computed values, with ties", () => {
    expect(spearman([1, 2, 3], [10, 30, 20])).toBeCloseTo(0.5, 12);
    expect(kendall([1, 2, 3], [10, 30, 20])).toBeCloseTo(1 / 3, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(kendall([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(Array.from(midRanks([5, 1, 5, 3]))).toEqual([3.5, 1, 3.5, 2]);
    // tau-b with ties: x = [1, 1, 2, 3], y = [1, 2, 2, 3]: concordant 4, discordant 0, ties 1 in each -> 4 / 5
    expect(kendall([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(0.8, 12);
    // Spearman with ties is Pearson on mid-ranks: ranks [1.5, 1.5, 3, 4] and [1, 2.5, 2.5, 4]
    const pearson = (a: number[], b: number[]) => {
      const ma = a.reduce((s, x) => s + x) / a.length;
      const mb = b.reduce((s, x) => s + x) / b.length;
      let sab = 0,
        saa = 0,
        sbb = 0;
      a.forEach((x, i) => ((sab += (x - ma) * (b[i]! - mb)), (saa += (x - ma) ** 2), (sbb += (b[i]! - mb) ** 2)));
      return sab / Math.sqrt(saa * sbb);
    };
    expect(spearman([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(pearson([1.5, 1.5, 3, 4], [1, 2.5, 2.5, 4]), 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(() => kendall([1], [1, 2])).toThrow(RangeError);
  });
});

describe("leave-one-category-out folds", () => {
  const categories = ["a", "b", "a", undefined, "b", "c", "a", "b"];
  const split = { train: [0, 1, 3, 5], val: [2, 4], test: [6, 7] };

  it("hold out each category with test items: train and val of the others, probes from its non-test items", () => {
    const folds = categoryFolds(categories, split);
    expect(folds.map((f) => f.category)).toEqual(["a", "b"]); // c has no test item
    const [a, b] = folds;
    expect(a).toEqual({ category: "a", train: [1, 3, 5], val: [4], test: [6], probePool: [0, 2] });
    expect(b).toEqual({ category: "b", train: [0, 3, 5], val: [2], test: [7], probePool: [1, 4] });
    for (const f of folds) {
      const seen = new Set([...f.train, ...f.val]);
      expect(f.test.some((i) => seen.has(i)) || f.probePool.some((i) => seen.has(i) || f.test.includes(i))).toBe(false);
    }
  });
});

describe("metrics and the probe-accuracy baseline", () => {
  it("foldFigures gives MAE and rank agreement", () => {
    const f = foldFigures([0.5, 0.7, 0.9], [0.6, 0.8, 0.7]);
    expect(f.mae).toBeCloseTo(0.4 / 3, 12);
    expect(f.spearman).toBeCloseTo(0.5, 12);
    expect(f.kendall).toBeCloseTo(1 / 3, 12);
  });

  it("probeAccuracy is the beta posterior mean; betaPriorStrength follows the between-category spread", () => {
    expect(probeAccuracy(7, 10, 0.5, 10)).toBeCloseTo(0.6, 12);
    expect(probeAccuracy(0, 0, 0.42, 5)).toBeCloseTo(0.42, 12);
    const spread = (d: number) =>
      betaPriorStrength([
        {
          mean: 0.5,
          categories: [
            { accuracy: 0.5 - d, n: 1e9 },
            { accuracy: 0.5 + d, n: 1e9 },
          ],
        },
      ]);
    expect(spread(0.1)).toBeCloseTo(0.25 / 0.01 - 1, 3);
    expect(spread(0.2)).toBeLessThan(spread(0.1));
    expect(betaPriorStrength([{ mean: 0.5, categories: [{ accuracy: 0.5, n: 10 }] }])).toBe(1000); // no spread beyond noise
  });

  it("observedAccuracies averages each model's labels over the rows", () => {
    const labels = {
      offsets: Int32Array.from([0, 2, 3, 4]),
      model: Int32Array.from([0, 1, 0, 1]),
      y: Float32Array.from([1, 0, 0, 1]),
    };
    expect(observedAccuracies(labels, [0, 1], 3)).toEqual({ accuracy: [0.5, 0, NaN], count: [2, 1, 0] });
  });
});

describe("the benchmark's summary", () => {
  const outcome = (truth: number, irt0: number, mean: number): ModelOutcome => ({
    model: `m${truth}`,
    nTest: 10,
    truth,
    meanAccuracy: mean,
    embedllmMf: mean,
    irt: {
      0: { accuracy: irt0, lo: irt0 - 0.05, hi: irt0 + 0.05, probes: 0 },
      10: { accuracy: truth, lo: truth, hi: truth, probes: 10 },
    },
    probe: { 10: truth + 0.1 },
  });
  const result = (category: string, seed: number, models: ModelOutcome[]): FoldResult => ({
    category,
    seed,
    nTest: 10,
    nProbePool: 20,
    priorStrength: 10,
    knownScale: 0.3,
    bestEpoch: 1,
    epochs: 1,
    trainSeconds: 1,
    models,
  });

  it("averages seeds within a category, categories overall, and reports the rows the protocol names", () => {
    const results = [
      result("x", 1, [outcome(0.5, 0.52, 0.6), outcome(0.8, 0.78, 0.7)]),
      result("x", 2, [outcome(0.5, 0.56, 0.6), outcome(0.8, 0.76, 0.7)]),
      result("y", 1, [outcome(0.3, 0.3, 0.5), outcome(0.9, 0.9, 0.5)]),
    ];
    const { rows, categories } = summarisePredict("toy", results, [0, 10]);
    expect(rows.map((r) => `${r.method}@${r.probes}`)).toEqual(
      reportedPairs([0, 10]).map((p) => `${p.method}@${p.probes}`),
    );
    const irt0 = rows.find((r) => r.method === "irt-moe" && r.probes === 0)!;
    // x: seed 1 MAE 2 points, seed 2 MAE (6 + 4) / 2 = 5 points -> 3.5; y: 0 -> overall 1.75
    expect(irt0.mae).toBeCloseTo(1.75, 9);
    expect(categories.find((c) => c.category === "x")!.mae["irt-moe@0"]).toBeCloseTo(3.5, 9);
    expect(irt0.coverage).toBeCloseTo(5 / 6, 12); // intervals are +-0.05: only x seed 2's 0.56 for 0.5 misses
    const mean = rows.find((r) => r.method === "mean-accuracy")!;
    expect(mean.mae).toBeCloseTo((10 + 30) / 2, 9); // x: 10 and 10 points; y: 20 and 40
    expect(mean.diffVsIrtCi95![0]).toBeGreaterThan(0);
    const probe = rows.find((r) => r.method === "probe-accuracy" && r.probes === 10)!;
    expect(probe.mae).toBeCloseTo(10, 9);
    expect(rows.find((r) => r.method === "irt-moe" && r.probes === 10)!.spearman).toBeCloseTo(1, 12);
  });
});
