/**
 * One fold of the accuracy-prediction benchmark for one seed: train the IRT-MoE scorer without the held-out
 * category, fit its known-model prior on the training labels, and predict every model's accuracy on the held-out
 * category's test items with irt-moe (0 / 10 / 50 probes) and the baselines (mean-accuracy, embedllm-mf,
 * probe-accuracy). Returns plain numbers (cached as JSON by bench/predict/main.ts).
 */
import type { Tf } from "../../adapters/tf.js";
import { embedLlmMfBaseline } from "../../src/baselines/index.js";
import { shuffledIndices } from "../../src/learning/probe-picker.js";
import { fitKnownPriorOnTraining } from "../../src/learning/known-prior.js";
import { predictAccuracy } from "../../src/learning/predict.js";
import type { IrtMoeConfig } from "../../src/scorer/config.js";
import { foldedItemParams } from "../../src/scorer/forward.js";
import { trainIrtMoe, type EmbeddedLabels } from "../../src/scorer/train.js";
import { betaPriorStrength, observedAccuracies, probeAccuracy, type CategoryFold } from "./category-folds.js";

export const PROBE_COUNTS = [0, 10, 50] as const;

/** What one model got in one fold and seed (accuracies in [0, 1]). */
export interface ModelOutcome {
  readonly model: string;
  readonly nTest: number;
  readonly truth: number;
  readonly meanAccuracy: number;
  readonly embedllmMf: number;
  /** irt-moe by probe count: accuracy and its 95% interval. */
  readonly irt: Record<string, { accuracy: number; lo: number; hi: number; probes: number }>;
  /** probe-accuracy by probe count (10, 50). */
  readonly probe: Record<string, number>;
  /** irt-moe-cal by probe count (bench/predict/calibrate.ts; computed at report time, not cached). */
  readonly cal?: Record<string, { accuracy: number; lo: number; hi: number }>;
}

export interface FoldResult {
  readonly category: string;
  readonly seed: number;
  readonly nTest: number;
  readonly nProbePool: number;
  readonly priorStrength: number;
  readonly knownScale: number | null;
  readonly bestEpoch: number;
  readonly epochs: number;
  readonly trainSeconds: number;
  readonly models: ModelOutcome[];
  /** The cross-fitted calibration of irt-moe-cal (report time only). */
  readonly calibration?: { readonly shrinkWeight: number; readonly shiftVariance: number };
}

/** Seed of one model's probe draw: the same items for irt-moe and probe-accuracy; 10 probes are the first 10 of the 50. */
function probeSeed(seed: number, category: string, model: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of `${category}\u0000${model}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

/**
 * Runs one fold for one seed.
 *
 * @example
 * ```ts
 * const result = await runFold(tf, data, categories, fold, 1, { maxEpochs: 3 });
 * ```
 */
export async function runFold(
  tf: Tf,
  data: EmbeddedLabels & { readonly models: readonly string[] },
  categories: readonly (string | undefined)[],
  fold: CategoryFold,
  seed: number,
  config: Partial<IrtMoeConfig>,
): Promise<FoldResult> {
  const trained = await trainIrtMoe(tf, data, { train: fold.train, val: fold.val }, config, { seed });
  const d = trained.config.abilityDim;
  const { alphas, betas } = foldedItemParams(trained, data.X, [...fold.train, ...fold.test, ...fold.probePool]);
  const abilities = data.models.map((_, m) => trained.weights.theta.subarray(m * d, (m + 1) * d));
  const knownPrior = fitKnownPriorOnTraining({
    dim: d,
    alphas,
    betas,
    abilities,
    labels: data,
    rows: fold.train,
    groupOf: (i) => categories[i],
  });
  const scorer = {
    models: data.models.map((id, m) => ({ id, ability: abilities[m]! })),
    ...(knownPrior ? { knownPrior } : {}),
  };

  const mf = await embedLlmMfBaseline().fit(data, { train: fold.train, val: fold.val }, { seed });
  const mfP = await mf.predict(data.X, fold.test);
  const truth = observedAccuracies(data, fold.test, data.nModels);
  const elsewhere = observedAccuracies(data, fold.train, data.nModels);
  const strength = betaPriorStrength(priorGroups(data, fold.train, categories, elsewhere.accuracy));
  const row = (i: number) => ({ alpha: alphas.subarray(i * d, (i + 1) * d), beta: betas[i]! });

  const models: ModelOutcome[] = [];
  for (let m = 0; m < data.nModels; m++) {
    if (truth.count[m] === 0 || !(elsewhere.count[m]! > 0)) continue;
    const testRows: number[] = [];
    const observed = new Map<number, number>();
    const labelOf = (rows: readonly number[]) => {
      for (const i of rows)
        for (let j = data.offsets[i]!; j < data.offsets[i + 1]!; j++)
          if (data.model[j] === m) observed.set(i, data.y[j]!);
    };
    labelOf(fold.test);
    labelOf(fold.probePool);
    let mfSum = 0;
    fold.test.forEach((i, r) => {
      if (!observed.has(i)) return;
      testRows.push(i);
      mfSum += mfP[r * data.nModels + m]!;
    });
    const items = { dim: d, alphas: new Float32Array(testRows.length * d), betas: new Float32Array(testRows.length) };
    testRows.forEach((i, r) => {
      items.alphas.set(row(i).alpha, r * d);
      items.betas[r] = betas[i]!;
    });
    const pool = fold.probePool.filter((i) => observed.has(i));
    // One seeded order per (seed, category, model): the 10 probes are the first 10 of the 50
    const ordered = shuffledIndices(pool.length, probeSeed(seed, fold.category, m));
    const irt: ModelOutcome["irt"] = {};
    const probe: ModelOutcome["probe"] = {};
    for (const n of PROBE_COUNTS) {
      const picked = ordered.slice(0, n).map((r) => pool[r]!);
      const probes = picked.map((i) => ({ ...row(i), y: observed.get(i)! }));
      const [p] = predictAccuracy({
        scorer,
        items,
        models: [{ id: data.models[m]!, probes }],
        seed: probeSeed(seed, fold.category, m),
      });
      irt[n] = { accuracy: p!.accuracy, lo: p!.interval[0], hi: p!.interval[1], probes: probes.length };
      if (n > 0)
        probe[n] = probeAccuracy(
          probes.reduce((s, x) => s + x.y, 0),
          probes.length,
          elsewhere.accuracy[m]!,
          strength,
        );
    }
    models.push({
      model: data.models[m]!,
      nTest: testRows.length,
      truth: truth.accuracy[m]!,
      meanAccuracy: elsewhere.accuracy[m]!,
      embedllmMf: mfSum / testRows.length,
      irt,
      probe,
    });
  }
  return {
    category: fold.category,
    seed,
    nTest: fold.test.length,
    nProbePool: fold.probePool.length,
    priorStrength: strength,
    knownScale: knownPrior?.scale ?? null,
    bestEpoch: trained.bestEpoch,
    epochs: trained.history.length,
    trainSeconds: trained.trainSeconds,
    models,
  };
}

/** Per model: its mean accuracy elsewhere and its accuracy on each training category (for the beta prior). */
function priorGroups(
  data: EmbeddedLabels,
  rows: readonly number[],
  categories: readonly (string | undefined)[],
  means: readonly number[],
) {
  const byModel = Array.from({ length: data.nModels }, () => new Map<string, { s: number; n: number }>());
  for (const i of rows) {
    const c = categories[i];
    if (c === undefined) continue;
    for (let j = data.offsets[i]!; j < data.offsets[i + 1]!; j++) {
      const g = byModel[data.model[j]!]!;
      const e = g.get(c) ?? { s: 0, n: 0 };
      e.s += data.y[j]!;
      e.n++;
      g.set(c, e);
    }
  }
  return byModel
    .map((g, m) => ({ mean: means[m]!, categories: [...g.values()].map((e) => ({ accuracy: e.s / e.n, n: e.n })) }))
    .filter((g) => Number.isFinite(g.mean));
}
