import { describe, expect, it } from "vitest";
import {
  fitKnownPriorOnTraining,
  fitKnownScale,
  OnlineLearner,
  populationPrior,
  seededRng,
  type WorkloadGroup,
} from "../../src/learning/index.js";
import { cholesky } from "../../src/learning/linalg.js";
import { makeWorld, trueP } from "./synthetic.js";

/**
 * Models with abilities theta_m; on each of `nCategories` workloads a model's ability is shifted by a draw from
 * N(0, sTrue * Sigma_pop). Items and labels are sampled from that IRT model.
 */
function shiftedWorkloads(seed: number, sTrue: number) {
  const d = 4;
  const nCategories = 8;
  const perCategory = 150;
  const w = makeWorld(seed, d, nCategories * perCategory, 20, 1.2);
  const rng = seededRng(seed + 99);
  const population = populationPrior(w.thetas, { shrinkage: 0.2 });
  const { L } = cholesky(Float64Array.from(population.covariance), d);
  const groups: WorkloadGroup[] = [];
  for (const theta of w.thetas) {
    for (let c = 0; c < nCategories; c++) {
      const z = Array.from({ length: d }, () => rng.normal());
      const shifted = Float64Array.from(theta, (t, r) => {
        let v = 0;
        for (let k = 0; k <= r; k++) v += L[r * d + k]! * z[k]!;
        return t + Math.sqrt(sTrue) * v;
      });
      const items = Array.from({ length: perCategory }, (_, k) => c * perCategory + k);
      const y = items.map((i) => (rng.next() < trueP(w, shifted, i) ? 1 : 0));
      groups.push({ ability: theta, items, y });
    }
  }
  return { w, population, groups };
}

describe("fitKnownScale (empirical Bayes over workloads)", () => {
  it("recovers the scale of simulated workload shifts", () => {
    for (const sTrue of [0.05, 0.3]) {
      const { w, population, groups } = shiftedWorkloads(3, sTrue);
      const fit = fitKnownScale({
        dim: w.d,
        alphas: w.alphas,
        betas: w.betas,
        covariance: population.covariance,
        groups,
      });
      expect(fit.atBoundary).toBe(false);
      expect(fit.scale).toBeGreaterThan(sTrue * 0.7);
      expect(fit.scale).toBeLessThan(sTrue * 1.4);
      expect(fit.groups).toBe(160);
      expect(fit.labels).toBe(160 * 150);
      expect(fit.unconverged).toBe(0);
      // the golden-section refinement stays between the best grid point's neighbours and moves off the grid
      const best = fit.curve.reduce((b, c, k) => (c.logEvidence > fit.curve[b]!.logEvidence ? k : b), 0);
      expect(fit.scale).toBeGreaterThan(fit.curve[best - 1]!.scale);
      expect(fit.scale).toBeLessThan(fit.curve[best + 1]!.scale);
      expect(fit.curve.some((c) => Math.abs(c.scale - fit.scale) < 1e-12)).toBe(false);
      for (const c of fit.curve) expect(fit.logEvidence).toBeGreaterThanOrEqual(c.logEvidence - 1e-6);
    }
  });

  it("ends at the low end of the range when abilities do not shift", () => {
    const none = shiftedWorkloads(5, 0);
    const some = shiftedWorkloads(5, 0.3);
    const fitNone = fitKnownScale({
      dim: 4,
      alphas: none.w.alphas,
      betas: none.w.betas,
      covariance: none.population.covariance,
      groups: none.groups,
    });
    const fitSome = fitKnownScale({
      dim: 4,
      alphas: some.w.alphas,
      betas: some.w.betas,
      covariance: some.population.covariance,
      groups: some.groups,
    });
    expect(fitNone.atBoundary).toBe(true); // the evidence keeps rising toward s = 0: the range's low end
    expect(fitNone.scale).toBeCloseTo(1e-3, 9);
    expect(fitSome.scale).toBeGreaterThan(10 * fitNone.scale);
  });

  it("rejects inputs it cannot fit on", () => {
    const { w, population, groups } = shiftedWorkloads(1, 0.1);
    const base = { dim: 4, alphas: w.alphas, betas: w.betas, covariance: population.covariance };
    expect(() => fitKnownScale({ ...base, groups: [] })).toThrow(/no workload groups/);
    expect(() => fitKnownScale({ ...base, groups: [{ ...groups[0]!, y: [1] }] })).toThrow(
      /group 0 has 150 items but 1 labels/,
    );
    expect(() => fitKnownScale({ ...base, groups, range: [1, 0.1] })).toThrow(/range/);
    expect(() => fitKnownScale({ ...base, covariance: [1, 0, 0, 1], groups })).toThrow(
      /covariance has 4 entries, expected 16/,
    );
    const g0 = groups[0]!;
    expect(() =>
      fitKnownScale({ ...base, groups: [{ ...g0, items: [w.n, ...Array.from(g0.items).slice(1)] }] }),
    ).toThrow(new RegExp(`group 0 item 0 is ${w.n}, expected an integer in \\[0, ${w.n}\\)`));
    expect(() => fitKnownScale({ ...base, groups: [{ ...g0, y: [1.5, ...Array.from(g0.y).slice(1)] }] })).toThrow(
      /group 0 label 0 is 1.5, expected a number in \[0, 1\]/,
    );
    expect(() => fitKnownScale({ ...base, groups: [{ ...g0, ability: [Number.NaN, 0, 0, 0] }] })).toThrow(
      /ability\[0\] is not finite/,
    );
  });
});

describe("fitKnownPriorOnTraining", () => {
  it("groups labels by (model, category) over the given rows and skips rows without a category", () => {
    const { w, groups } = shiftedWorkloads(2, 0.2);
    // CSR labels: one row per item, the 20 models' labels on it (from the groups above).
    const nModels = w.thetas.length;
    const offsets = new Int32Array(w.n + 1);
    const model = new Int32Array(w.n * nModels);
    const y = new Float32Array(w.n * nModels);
    for (let i = 0; i < w.n; i++) {
      offsets[i + 1] = (i + 1) * nModels;
      for (let m = 0; m < nModels; m++) {
        const g = groups[m * 8 + Math.floor(i / 150)]!;
        model[i * nModels + m] = m;
        y[i * nModels + m] = g.y[i % 150]!;
      }
    }
    const abilities = w.thetas.map((t) => Float32Array.from(t));
    const rows = Array.from({ length: w.n }, (_, i) => i);
    const args = { dim: 4, alphas: w.alphas, betas: w.betas, abilities, labels: { offsets, model, y }, rows };
    const rec = fitKnownPriorOnTraining({ ...args, groupOf: (i) => (i < 600 ? `c${Math.floor(i / 150)}` : undefined) });
    expect(rec?.groups).toBe(4 * nModels);
    expect(rec?.labels).toBe(600 * nModels);
    expect(rec?.shrinkage).toBe(0.2);
    expect(rec!.scale).toBeGreaterThan(0.1);
    expect(rec!.scale).toBeLessThan(0.4);
    expect(fitKnownPriorOnTraining({ ...args, groupOf: () => undefined })).toBeUndefined();
    // A model without an ability row (not in the catalog) is left out of the groups.
    const without = fitKnownPriorOnTraining({
      ...args,
      abilities: [undefined, ...abilities.slice(1)],
      groupOf: (i) => (i < 600 ? `c${Math.floor(i / 150)}` : undefined),
    });
    expect(without?.groups).toBe(4 * (nModels - 1));
    expect(without?.labels).toBe(600 * (nModels - 1));
  });
});

describe("OnlineLearner.forScorer", () => {
  it("starts catalogued models at the scorer's fitted prior, and explicit options win", () => {
    const { w } = shiftedWorkloads(4, 0.1);
    const models = w.thetas.map((t, m) => ({ id: `m${m}`, ability: Float32Array.from(t) }));
    const alpha = Float32Array.from([0.5, -0.2, 0.1, 0.3]);
    const logitVar = (l: OnlineLearner) => l.posterior("m0").logit(alpha, 0).variance;
    const fitted = OnlineLearner.forScorer({ models, knownPrior: { scale: 0.4, shrinkage: 0.2 } });
    const direct = new OnlineLearner(models, { knownScale: 0.4 });
    expect(logitVar(fitted)).toBeCloseTo(logitVar(direct), 12);
    expect(logitVar(fitted)).toBeCloseTo(8 * logitVar(OnlineLearner.forScorer({ models })), 10); // default 0.05
    expect(
      logitVar(OnlineLearner.forScorer({ models, knownPrior: { scale: 0.4, shrinkage: 0.2 } }, { knownScale: 0.1 })),
    ).toBeCloseTo(logitVar(fitted) / 4, 10);
    // the same options restore a learner so that models added later start at the fitted prior
    const options = OnlineLearner.optionsForScorer({ knownPrior: { scale: 0.4, shrinkage: 0.2 } }, { explore: "ucb" });
    expect(options).toEqual({ knownScale: 0.4, shrinkage: 0.2, explore: "ucb" });
    const restored = OnlineLearner.fromState(OnlineLearner.forScorer({ models }).exportState(), options);
    restored.addModel("late", { ability: models[0]!.ability });
    expect(restored.posterior("late").logit(alpha, 0).variance).toBeCloseTo(logitVar(direct), 10);
  });
});
