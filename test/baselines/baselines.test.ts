import { describe, expect, it } from "vitest";
import {
  embedLlmMfBaseline,
  knnBaseline,
  linearMirtBaseline,
  logisticRegressionBaseline,
} from "../../src/baselines/index.js";
import { ValidationError } from "../../src/errors.js";
import { correctnessMetrics, nanMean } from "../../src/stats/metrics.js";
import { bestSingleModel, routeByPrediction, singleModelScores } from "../../src/stats/routing-scores.js";
import type { RoutingMethod } from "../../src/eval/types.js";
import { plantedData } from "../eval/synthetic.js";

// A planted linear-IRT signal with 20% of cells unobserved: every baseline must learn it, i.e.
// beat the best single model at routing and rank correctness far above chance.
const { data, split, truth } = plantedData({ nItems: 1500, dim: 16, nModels: 4, observe: 0.8, seed: 11 });
const best = bestSingleModel(data, split.train, data.nModels);
const bestSingle = nanMean(singleModelScores(data, split.test, best));
const truthBlock = Float32Array.from(split.test.flatMap((i) => Array.from(truth.subarray(i * 4, i * 4 + 4))));
const truthRouting = nanMean(routeByPrediction(data, split.test, truthBlock, 4).score);
const truthAuc = correctnessMetrics(data, split.test, truthBlock, 4).auc;

const cases: [string, RoutingMethod, number][] = [
  ["knn", knnBaseline({ kGrid: [10, 30], priorGrid: [1] }), 0.12],
  ["logistic-regression", logisticRegressionBaseline({ l2Grid: [1e-4], learningRate: 2e-2, maxEpochs: 25 }), 0.05],
  ["linear-mirt", linearMirtBaseline({ l2Grid: [1e-5], learningRate: 1e-2, maxEpochs: 25, dim: 4 }), 0.05],
  ["embedllm-mf", embedLlmMfBaseline({ l2Grid: [1e-5], learningRate: 1e-2, maxEpochs: 25, dim: 8 }), 0.05],
];

describe("baselines learn a planted signal", () => {
  it.each(cases)("%s", async (name, method, aucSlack) => {
    expect(method.name).toBe(name);
    const fitted = await method.fit(data, split, { seed: 1 });
    const p = await fitted.predict(data.X, split.test);
    expect(p.length).toBe(split.test.length * 4);
    const routing = nanMean(routeByPrediction(data, split.test, p, 4).score);
    const { auc } = correctnessMetrics(data, split.test, p, 4);
    expect(routing).toBeGreaterThan(bestSingle + 0.1);
    expect(auc).toBeGreaterThan(truthAuc - aucSlack);
    expect(routing).toBeLessThanOrEqual(truthRouting + 0.05);
    expect(fitted.description.length).toBeGreaterThan(10);
  });

  it("is reproducible per seed and differs across seeds (gradient baselines)", async () => {
    const method = linearMirtBaseline({ l2Grid: [1e-5], learningRate: 1e-2, maxEpochs: 3, dim: 4 });
    const a = await (await method.fit(data, split, { seed: 5 })).predict(data.X, split.test);
    const b = await (await method.fit(data, split, { seed: 5 })).predict(data.X, split.test);
    const c = await (await method.fit(data, split, { seed: 6 })).predict(data.X, split.test);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a)).not.toEqual(Array.from(c));
  });

  it("tunes the L2 grid once per dataset and reports the search", async () => {
    const method = logisticRegressionBaseline({ l2Grid: [1e-4, 1e-1], learningRate: 2e-2, maxEpochs: 4 });
    const first = await method.fit(data, split, { seed: 1 });
    expect(first.description).toMatch(/l2=0.0001: val log-loss .*l2=0.1: val log-loss/);
    expect(first.description).toMatch(/l2 0.0001 \(tuned/);
    const second = await method.fit(data, split, { seed: 2 });
    expect(second.description).toContain("l2 0.0001 (tuned");
  });

  it("reuses the L2 for the same split given as a new object, and tunes afresh on another split", async () => {
    const method = logisticRegressionBaseline({ l2Grid: [1e-4, 1e-1], learningRate: 2e-2, maxEpochs: 4 });
    const tried = async (s: { train: readonly number[]; val: readonly number[] }) => {
      const notes = new Set<string>();
      await method.fit(data, s, { seed: 1, onProgress: (e) => notes.add(String((e as { note?: string }).note)) });
      return [...notes].sort();
    };
    expect(await tried(split)).toEqual(["l2=0.0001", "l2=0.1"]);
    // as evaluate() passes it: the same items in new arrays
    expect(await tried({ train: [...split.train], val: [...split.val] })).toEqual(["l2=0.0001"]);
    // another split (here val = the test items) must not reuse a choice made on other items
    expect(await tried({ train: split.train, val: split.test })).toEqual(["l2=0.0001", "l2=0.1"]);
  });

  it("rejects bad options with a ValidationError naming the field", () => {
    expect(() => knnBaseline({ kGrid: [0] })).toThrow(ValidationError);
    expect(() => logisticRegressionBaseline({ l2Grid: [-1] })).toThrow(/l2Grid\.0/);
    expect(() => embedLlmMfBaseline({ dim: 2.5 } as never)).toThrow(/dim/);
  });

  it("refuses a dim for logistic regression, which has no latent dimension (it was silently ignored)", () => {
    expect(() => logisticRegressionBaseline({ dim: 8 } as never)).toThrow(ValidationError);
    expect(() => logisticRegressionBaseline({ dim: 8 } as never)).toThrow(
      /logisticRegressionBaseline\.dim: unknown key "dim"/,
    );
  });
});
