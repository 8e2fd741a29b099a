import { describe, expect, it } from "vitest";
import { knnBaseline, logisticRegressionBaseline } from "../../src/baselines/index.js";
import { ValidationError } from "../../src/errors.js";
import { evaluate, IRT_MOE, type EvalDataset } from "../../src/eval/evaluate.js";
import { formatEvalJson, formatEvalMarkdown } from "../../src/eval/format.js";
import type { RoutingMethod } from "../../src/eval/types.js";
import { plantedData } from "./synthetic.js";
import { rejectedWith } from "../errors.js";

const nModels = 3;
const { data, split, truth } = plantedData({ nItems: 900, dim: 12, nModels, observe: 0.9, seed: 21 });

/** A stand-in for the scorer: the true probabilities plus seed-dependent noise. */
const truthMethod: RoutingMethod = {
  name: IRT_MOE,
  seeded: true,
  async fit(_d, _s, { seed }) {
    return {
      description: `truth + noise (seed ${seed})`,
      predict: (_X, rows) =>
        Float32Array.from(
          rows.flatMap((i) =>
            Array.from({ length: nModels }, (_, m) => {
              const u = Math.sin(seed * 1000 + i * 7 + m) * 0.02;
              return Math.min(1, Math.max(0, truth[i * nModels + m]! + u));
            }),
          ),
        ),
    };
  },
};

// Costs: model 2 expensive, model 0 cheap; recorded = expected x (0.5 .. 1.5) noise.
const recorded = Float32Array.from(data.model, (m, e) => [0.001, 0.003, 0.01][m]! * (1 + 0.5 * Math.sin(e)));
const expected = Float64Array.from({ length: data.nItems * nModels }, (_, k) => [0.001, 0.003, 0.01][k % nModels]!);

const dataset: EvalDataset = {
  name: "synthetic",
  models: ["cheap", "mid", "dear"],
  data,
  split,
  categories: Array.from({ length: data.nItems }, (_, i) => (i % 3 === 0 ? "a" : "b")),
  cost: { recorded, expected, note: "synthetic" },
};

const methods = [
  truthMethod,
  knnBaseline({ kGrid: [10, 40], priorGrid: [1] }),
  logisticRegressionBaseline({ l2Grid: [1e-3], learningRate: 2e-2, maxEpochs: 6 }),
];

describe("evaluate (end to end, synthetic)", async () => {
  const report = await evaluate(dataset, { methods, seeds: [1, 2], bootstrap: { resamples: 300, seed: 4 } });
  const row = (name: string) => report.methods.find((m) => m.name === name)!;

  it("has every protocol row and field", () => {
    expect(report.methods.map((m) => m.name)).toEqual([
      IRT_MOE,
      "knn",
      "logistic-regression",
      "best-single",
      "best-per-task",
      "random",
      "oracle",
    ]);
    expect(report.counts).toEqual({ train: split.train.length, val: split.val.length, test: split.test.length });
    expect(report.seeds).toEqual([1, 2]);
    const json = JSON.parse(formatEvalJson(report));
    for (const m of json.methods) {
      for (const key of [
        "name",
        "routingAccuracy",
        "routingAccuracySd",
        "routingCi95",
        "diffVsIrtMoe",
        "diffVsIrtMoeCi95",
        "accuracy",
        "auc",
        "brier",
        "ece",
        "gapClosed",
        "trainSeconds",
        "inferMsPerQuery",
      ]) {
        expect(m).toHaveProperty(key);
      }
    }
    expect(json.methods[0].costAware).toHaveProperty("accuracyAtHalfCost");
    expect(json.methods[0].costAware).toHaveProperty("matchCostFraction");
    expect(json.methods[0].costAware).toHaveProperty("hullArea");
  });

  it("runs seeded methods once per seed and deterministic ones once", () => {
    expect(row(IRT_MOE).perSeed.map((s) => s.seed)).toEqual([1, 2]);
    expect(row("knn").perSeed.map((s) => s.seed)).toEqual([1]);
    expect(row("knn").routingAccuracySd).toBe(0);
  });

  it("orders the reference rows and scores the router between them", () => {
    const best = row("best-single").routingAccuracy;
    const oracle = row("oracle").routingAccuracy;
    const irt = row(IRT_MOE);
    expect(row("random").routingAccuracy).toBeLessThan(oracle);
    expect(irt.routingAccuracy).toBeGreaterThan(best);
    expect(irt.routingAccuracy).toBeLessThanOrEqual(oracle);
    expect(irt.gapClosed).toBeCloseTo((irt.routingAccuracy - best) / (oracle - best), 12);
    expect(irt.routingCi95[0]).toBeLessThan(irt.routingAccuracy);
    expect(irt.routingCi95[1]).toBeGreaterThan(irt.routingAccuracy);
    expect(irt.diffVsIrtMoe).toBe(0);
    expect(row("best-single").diffVsIrtMoeCi95![1]).toBeLessThan(0); // irt-moe significantly better
    expect(irt.auc).toBeGreaterThan(0.8);
    expect(row("random").auc).toBeNull();
  });

  it("gives the cost-aware figures from expected costs, with lambda chosen on val", () => {
    const c = row(IRT_MOE).costAware!;
    expect(c.curve.length).toBeGreaterThan(10);
    expect(c.hullArea).toBeGreaterThan(0);
    expect(c.hullArea).toBeLessThanOrEqual(1);
    if (c.accuracyAtHalfCost !== null) expect(c.halfCostSpendFraction).toBeLessThan(0.8);
    expect(report.costReference!.singleModels).toHaveLength(3);
    expect(row("oracle").costAware).toBeUndefined();
  });

  it("breaks routing down per category", () => {
    expect(report.categories.map((c) => c.category)).toEqual(["a", "b"]);
    expect(report.categories.reduce((s, c) => s + c.n, 0)).toBe(split.test.length);
    expect(Object.keys(report.categories[0]!.routing)).toContain(IRT_MOE);
  });

  it("prints readable tables that never call a CI covering 0 a win", () => {
    const text = formatEvalMarkdown(report);
    expect(text).toContain("| method | routing acc");
    expect(text).toContain("Routing accuracy per category");
    expect(text).toContain("Cost-aware routing");
    for (const m of report.methods) {
      const ci = m.diffVsIrtMoeCi95;
      if (m.name !== IRT_MOE && m.name !== "oracle" && ci && ci[0] <= 0 && ci[1] >= 0)
        expect(text).toMatch(new RegExp(`\\| ${m.name} \\|.*no significant difference`));
    }
  });

  it("is deterministic for the same seeds", async () => {
    const again = await evaluate(dataset, {
      methods: [truthMethod],
      seeds: [1, 2],
      bootstrap: { resamples: 300, seed: 4 },
    });
    expect(again.methods[0]!.routingCi95).toEqual(row(IRT_MOE).routingCi95);
    expect(again.methods[0]!.routingAccuracy).toBe(row(IRT_MOE).routingAccuracy);
  });

  it("rejects bad input with typed errors", async () => {
    await expect(evaluate(dataset, { methods: [] })).rejects.toThrow(ValidationError);
    await expect(evaluate(dataset, { methods, seeds: [1.5] })).rejects.toThrow(/seeds\.0/);
    await expect(evaluate({ ...dataset, models: ["a"] }, { methods })).rejects.toThrow(/models/);
    const bad: RoutingMethod = {
      name: "bad",
      seeded: false,
      fit: async () => ({ description: "", predict: () => new Float32Array(3) }),
    };
    await expect(evaluate(dataset, { methods: [bad] })).rejects.toThrow(/returned 3 predictions/);
  });

  it("refuses a split whose parts overlap (a test item also in train would leak into the scores)", async () => {
    const leaky = { ...dataset, split: { ...split, test: [...split.test, split.train[0]!] } };
    const error = await rejectedWith(ValidationError, evaluate(leaky, { methods: [truthMethod] }));
    expect(error.path).toBe("dataset.split.test");
    expect(error.message).toMatch(/already in split\.train/);
    const twice = { ...dataset, split: { ...split, val: [...split.val, split.val[0]!] } };
    await expect(evaluate(twice, { methods: [truthMethod] })).rejects.toThrow(/already in split\.val/);
  });
});

describe("cost-aware figures when only some seeds have them", async () => {
  // Two models: "cheap" (0.001 USD) right on items with i % 10 in 1..6, "dear" (0.01 USD, the best single model) on
  // every item but i % 10 = 0. Blocks of 50 items keep each residue equally often in every split.
  const n = 300;
  const cheapRight = (i: number) => (i % 10 >= 1 && i % 10 <= 6 ? 1 : 0);
  const dearRight = (i: number) => (i % 10 !== 0 ? 1 : 0);
  const ds: EvalDataset = {
    name: "two-models",
    models: ["cheap", "dear"],
    data: {
      X: new Float32Array(n),
      dim: 1,
      nItems: n,
      nModels: 2,
      offsets: Int32Array.from({ length: n + 1 }, (_, i) => 2 * i),
      model: Int32Array.from({ length: 2 * n }, (_, e) => e % 2),
      y: Float32Array.from({ length: 2 * n }, (_, e) => (e % 2 === 0 ? cheapRight(e >> 1) : dearRight(e >> 1))),
    },
    split: {
      train: [...Array(200).keys()],
      val: [...Array(50).keys()].map((k) => 200 + k),
      test: [...Array(50).keys()].map((k) => 250 + k),
    },
    cost: {
      recorded: Float32Array.from({ length: 2 * n }, (_, e) => (e % 2 === 0 ? 0.001 : 0.01)),
      expected: Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? 0.001 : 0.01)),
    },
  };
  // Seed 1 knows every label: 0.9 (= always dear) at 37% of dear's spend, under the 50% cap on val.
  // Seed 2 always prefers dear, even at the largest lambda of this grid: it matches at 100%, but never meets the cap.
  // Seed 3 always prefers cheap: 0.6 at 10% of the spend, under the cap, and never matches dear's accuracy.
  const perSeed: RoutingMethod = {
    name: IRT_MOE,
    seeded: true,
    async fit(data, _split, { seed }) {
      return {
        description: `seed ${seed}`,
        predict: (_X, rows) =>
          Float32Array.from(
            rows.flatMap((i) => (seed === 1 ? [data.y[2 * i]!, data.y[2 * i + 1]!] : seed === 2 ? [0, 1] : [1, 0])),
          ),
      };
    },
  };
  const report = await evaluate(ds, {
    methods: [perSeed],
    seeds: [1, 2, 3],
    lambdas: [0, 10],
    bootstrap: { resamples: 100, seed: 1 },
  });
  const c = report.methods[0]!.costAware!;

  it("averages each figure over the seeds that have it and says how many, instead of reporting none", () => {
    expect(report.costReference!.bestSingle).toMatchObject({ model: "dear", accuracy: 0.9 });
    expect(c.perSeed.map((s) => s.accuracyAtHalfCost)).toEqual([0.9, null, expect.closeTo(0.6, 12)]);
    expect(c.perSeed.map((s) => s.matchCostFraction)).toEqual([expect.closeTo(0.37, 6), 1, null]);
    expect(c).toMatchObject({ halfCostSeeds: 2, matchedSeeds: 2 });
    expect(c.accuracyAtHalfCost).toBeCloseTo(0.75, 12);
    expect(c.halfCostSpendFraction).toBeCloseTo((0.37 + 0.1) / 2, 6);
    expect(c.matchCostFraction).toBeCloseTo((0.37 + 1) / 2, 6);
    expect(c.matchCostFractionSd).toBeCloseTo(Math.SQRT1_2 * 0.63, 6);
    const json = JSON.parse(formatEvalJson(report)).methods[0].costAware;
    expect(json.matchCostFraction).toBeCloseTo(0.685, 6);
    expect(json.perSeed[2]).toEqual({
      seed: 3,
      accuracyAtHalfCost: expect.closeTo(0.6, 12),
      halfCostSpendFraction: expect.closeTo(0.1, 6),
      matchCostFraction: null,
      hullArea: expect.any(Number),
    });
  });

  it("labels a partial figure with its seed count, and 'never' only when no seed reaches the best single model", async () => {
    const text = formatEvalMarkdown(report);
    expect(text).toMatch(
      /\| irt-moe \| 0\.7500 \(2\/3 seeds; no lambda under the cap on val in 1\) \| [0-9.]+ \| 0\.235 \| 0\.685 \(2\/3 seeds; never in 1\) \|/,
    );
    const cheapOnly = await evaluate(ds, {
      methods: [{ ...perSeed, fit: (d, s, o) => perSeed.fit(d, s, { ...o, seed: 3 }) }],
      seeds: [1, 2],
      lambdas: [0, 10],
      bootstrap: { resamples: 100, seed: 1 },
    });
    expect(cheapOnly.methods[0]!.costAware).toMatchObject({
      matchCostFraction: null,
      matchedSeeds: 0,
      halfCostSeeds: 2,
    });
    expect(formatEvalMarkdown(cheapOnly)).toMatch(
      /\| irt-moe \| 0\.6000 \| 0\.0000 \| 0\.100 \| never \(0\/2 seeds\) \|/,
    );
  });
});

describe("cost data with calls of unknown cost", () => {
  const withGaps = (positions: readonly number[]): EvalDataset => {
    const gap = Float32Array.from(recorded);
    for (const e of positions) gap[e] = NaN;
    return {
      ...dataset,
      itemIds: Array.from({ length: data.nItems }, (_, i) => `q${i}`),
      cost: { ...dataset.cost!, recorded: gap },
    };
  };
  const firstCall = (item: number, model: number) => {
    for (let e = data.offsets[item]!; e < data.offsets[item + 1]!; e++) if (data.model[e] === model) return e;
    throw new Error("unobserved");
  };

  it("computes no cost-aware figure when a val or test call has no recorded cost, and says why with the counts", async () => {
    const t = split.test[3]!;
    const v = split.val[0]!;
    const report = await evaluate(withGaps([firstCall(t, 0), firstCall(v, 0)]), {
      methods: [truthMethod],
      seeds: [1],
      bootstrap: { resamples: 100, seed: 1 },
    });
    expect(report.methods.every((m) => m.costAware === undefined)).toBe(true);
    expect(report.costReference).toBeUndefined();
    expect(report.costAwareNotComputed).toMatchObject({
      unknownCost: { train: 0, val: 1, test: 1 },
      modelsWithoutEstimate: [],
    });
    expect(report.costAwareNotComputed!.reason).toMatch(
      new RegExp(
        `2 of the \\d+ observed val and test calls have no recorded cost \\(val 1, test 1; e\\.g\\. item "q${v}" with model "cheap"`,
      ),
    );
    expect(formatEvalMarkdown(report)).toContain(report.costAwareNotComputed!.reason);
    expect(JSON.parse(formatEvalJson(report)).costAwareNotComputed.unknownCost).toEqual({ train: 0, val: 1, test: 1 });
    // the other figures are those of the complete data
    const full = await evaluate(dataset, {
      methods: [truthMethod],
      seeds: [1],
      bootstrap: { resamples: 100, seed: 1 },
    });
    expect(report.methods[0]!.routingAccuracy).toBe(full.methods[0]!.routingAccuracy);
  });

  it("counts train calls without a cost (they only inform the ex-ante estimate) and refuses a model with no estimate", async () => {
    const train = split.train.slice(0, 5).map((i) => firstCall(i, 0));
    const report = await evaluate(withGaps(train), {
      methods: [truthMethod],
      seeds: [1],
      bootstrap: { resamples: 100, seed: 1 },
    });
    expect(report.costReference!.unknownTrainCost).toBe(5);
    expect(report.methods[0]!.costAware).toBeDefined();
    expect(formatEvalMarkdown(report)).toContain(
      "5 train calls have no recorded cost: the estimate is made from the others.",
    );
    const noEstimate = Float64Array.from(expected, (c, k) => (k % nModels === 2 ? NaN : c));
    const refused = await evaluate(
      { ...dataset, cost: { ...dataset.cost!, expected: noEstimate } },
      { methods: [truthMethod], seeds: [1], bootstrap: { resamples: 100, seed: 1 } },
    );
    expect(refused.costAwareNotComputed).toMatchObject({
      unknownCost: { train: 0, val: 0, test: 0 },
      modelsWithoutEstimate: ["dear"],
    });
    expect(refused.costAwareNotComputed!.reason).toMatch(
      /no ex-ante cost estimate for "dear" \(no finite expected cost was given\)/,
    );
    // with the estimates, the model is named with the estimate's own reason
    const estimates = dataset.models.map((_, m) =>
      m === 2
        ? {
            method: "none" as const,
            reason: "a list price, but no train call with a recorded cost",
            trainCalls: 0,
            unknownTrainCost: 3,
          }
        : {
            method: "train-mean" as const,
            reason: "no list price",
            meanTrainCost: 0.001,
            trainCalls: 3,
            unknownTrainCost: 0,
          },
    );
    const named = await evaluate(
      { ...dataset, cost: { ...dataset.cost!, expected: noEstimate, estimates } },
      { methods: [truthMethod], seeds: [1], bootstrap: { resamples: 100, seed: 1 } },
    );
    expect(named.costAwareNotComputed!.reason).toMatch(
      /no ex-ante cost estimate for "dear" \(a list price, but no train call with a recorded cost\), so the policy cannot weigh its cost/,
    );
    expect(named.costAwareNotComputed!.reason).not.toMatch(/no list price/);
  });
});
