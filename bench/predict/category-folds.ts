/**
 * Pure parts of the accuracy-prediction benchmark (bench/predict/main.ts, docs/evaluation.md): leave-one-category-out
 * folds, the probe-accuracy baseline's beta prior, and the per-fold figures (MAE, Spearman, Kendall).
 */
import { kendall, spearman } from "../../src/eval/rank-correlation.js";

/** One fold: a held-out category, what the scorer may learn from, what is predicted, and where probes come from. */
export interface CategoryFold {
  readonly category: string;
  /** Train-split items of the other categories (fit). */
  readonly train: number[];
  /** Val-split items of the other categories (early stopping, calibration, tuning). */
  readonly val: number[];
  /** Test-split items of the held-out category (the prediction target; its truth). */
  readonly test: number[];
  /** Train- and val-split items of the held-out category (where probes are drawn; never predicted). */
  readonly probePool: number[];
}

/**
 * One fold per category (sorted by name). Items without a category are never held out and stay in every fold's
 * training data. A category with no test item has nothing to predict and gets no fold.
 *
 * @example
 * ```ts
 * const folds = categoryFolds(ds.items.map((it) => it.category), splitIndices(ds.name, ids));
 * ```
 */
export function categoryFolds(
  categories: readonly (string | undefined)[],
  split: { readonly train: readonly number[]; readonly val: readonly number[]; readonly test: readonly number[] },
): CategoryFold[] {
  const names = [...new Set(categories.filter((c): c is string => c !== undefined && c !== ""))].sort();
  return names
    .map((category) => {
      const held = (i: number) => categories[i] === category;
      return {
        category,
        train: split.train.filter((i) => !held(i)),
        val: split.val.filter((i) => !held(i)),
        test: split.test.filter(held),
        probePool: [...split.train, ...split.val].filter(held).sort((a, b) => a - b),
      };
    })
    .filter((f) => f.test.length > 0);
}

/**
 * Strength s (pseudo-count) of the beta prior of the probe-accuracy baseline, Beta(s mu_m, s (1 - mu_m)) around a
 * model's mean accuracy mu_m elsewhere, by the method of moments over the training categories: a model's accuracy
 * on a category varies around its mean with variance v = mean over (model, category) of (acc_mc - mu_m)^2, minus
 * the binomial noise mu (1 - mu) / n_mc; a beta of mean mu and that variance has s = mu (1 - mu) / v - 1.
 * Clamped to [1, 1000].
 *
 * @example
 * ```ts
 * const s = betaPriorStrength([{ mean: 0.6, categories: [{ accuracy: 0.5, n: 100 }, { accuracy: 0.7, n: 100 }] }]);
 * ```
 */
export function betaPriorStrength(
  models: readonly { mean: number; categories: readonly { accuracy: number; n: number }[] }[],
): number {
  let between = 0;
  let spread = 0;
  let count = 0;
  for (const m of models) {
    for (const c of m.categories) {
      if (c.n <= 0) continue;
      between += (c.accuracy - m.mean) ** 2 - (m.mean * (1 - m.mean)) / c.n;
      spread += m.mean * (1 - m.mean);
      count++;
    }
  }
  if (count === 0) return 1;
  const v = between / count;
  if (!(v > 0)) return 1000;
  return Math.min(1000, Math.max(1, spread / count / v - 1));
}

/**
 * Posterior mean accuracy of the probe-accuracy baseline: (correct + s mu) / (asked + s).
 *
 * @example
 * ```ts
 * probeAccuracy(7, 10, 0.5, 10); // 0.6
 * ```
 */
export function probeAccuracy(correct: number, asked: number, mean: number, strength: number): number {
  return (correct + strength * mean) / (asked + strength);
}

/** Figures of one fold: mean absolute error (in accuracy units) and rank correlations across models. */
export interface FoldFigures {
  readonly mae: number;
  readonly spearman: number;
  readonly kendall: number;
}

/**
 * MAE, Spearman and Kendall between predicted and observed accuracies of the same models.
 *
 * @example
 * ```ts
 * foldFigures([0.5, 0.7], [0.6, 0.8]); // { mae: 0.1, spearman: 1, kendall: 1 }
 * ```
 */
export function foldFigures(predicted: readonly number[], truth: readonly number[]): FoldFigures {
  if (predicted.length !== truth.length || predicted.length === 0) {
    throw new RangeError(`foldFigures: ${predicted.length} predictions for ${truth.length} truths`);
  }
  let mae = 0;
  for (let i = 0; i < truth.length; i++) mae += Math.abs(predicted[i]! - truth[i]!) / truth.length;
  return { mae, spearman: spearman(predicted, truth), kendall: kendall(predicted, truth) };
}

/**
 * Per model, the mean label over the given items (NaN for a model with no label there) and the count.
 *
 * @example
 * ```ts
 * const { accuracy } = observedAccuracies(ds.labels, fold.test, ds.models.length);
 * ```
 */
export function observedAccuracies(
  labels: { readonly offsets: Int32Array; readonly model: Int32Array; readonly y: Float32Array },
  rows: readonly number[],
  nModels: number,
): { accuracy: number[]; count: number[] } {
  const sum = new Array<number>(nModels).fill(0);
  const count = new Array<number>(nModels).fill(0);
  for (const i of rows) {
    for (let j = labels.offsets[i]!; j < labels.offsets[i + 1]!; j++) {
      sum[labels.model[j]!] += labels.y[j]!;
      count[labels.model[j]!]++;
    }
  }
  return { accuracy: sum.map((s, m) => (count[m]! > 0 ? s / count[m]! : NaN)), count };
}
