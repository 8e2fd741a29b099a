/**
 * Cross-fitted calibration of the accuracy-prediction benchmark's irt-moe figures (`irt-moe-cal`,
 * docs/evaluation.md): for a held-out category c, everything is estimated on the folds of the *other* categories
 * (their scorers never saw c's test items), never on c itself:
 *
 * - **shrinkage** of the 0-probe prediction toward the mean-accuracy baseline b: pred0 = b + w (p - b), w the
 *   least-squares slope of (truth - b) on (p - b) through the origin over the other categories, clamped to [0, 1]
 *   (w = 1: trust the scorer; w = 0: the scorer adds nothing on a new category);
 * - **category-shift variance** tau^2 = mean over the other categories' models of (truth - pred)^2 minus the
 *   binomial noise of the observed accuracy pred (1 - pred) / n, floored at 0: the error the scorer makes on a
 *   category it never saw, which the ability posterior alone does not carry;
 * - **probes** by empirical Bayes: a beta prior centred on pred0 with the variance tau0^2 (strength
 *   pred0 (1 - pred0) / tau0^2 - 1), updated with the k correct of the N probes; the same form as the
 *   probe-accuracy baseline, whose prior is the model's mean accuracy elsewhere instead;
 * - the **interval**: pred +- z sqrt(tau_N^2 + pred (1 - pred) / n), tau_N^2 cross-fitted at the same probe count,
 *   so it is a predictive interval of the observed accuracy on the category's n test items.
 *
 * Pure; it needs only the figures each fold caches (bench/predict-fold.ts), so no scorer is retrained.
 */
import type { FoldResult, ModelOutcome } from "./predict-fold.js";

/** One model's figures in one fold, as the calibration uses them. */
export interface CalibrationPoint {
  /** The scorer's prediction (irt-moe). */
  readonly predicted: number;
  /** The mean-accuracy baseline b. */
  readonly baseline: number;
  /** Observed accuracy on the held-out test items. */
  readonly truth: number;
  /** Number of test items behind `truth`. */
  readonly n: number;
}

/**
 * Shrinkage weight w in [0, 1] of the prediction toward the baseline: argmin_w sum (truth - b - w (p - b))^2.
 * 1 when the predictions equal the baseline everywhere (nothing to shrink).
 *
 * @example
 * ```ts
 * shrinkWeight([{ predicted: 0.8, baseline: 0.6, truth: 0.7, n: 100 }]); // 0.5
 * ```
 */
export function shrinkWeight(points: readonly CalibrationPoint[]): number {
  let num = 0;
  let den = 0;
  for (const q of points) {
    num += (q.truth - q.baseline) * (q.predicted - q.baseline);
    den += (q.predicted - q.baseline) ** 2;
  }
  if (!(den > 0)) return 1;
  return Math.min(1, Math.max(0, num / den));
}

/**
 * Category-shift variance: mean of (truth - predicted)^2 - predicted (1 - predicted) / n, floored at 0.
 *
 * @example
 * ```ts
 * shiftVariance([{ predicted: 0.5, baseline: 0.5, truth: 0.7, n: 100 }]); // 0.04 - 0.0025 = 0.0375
 * ```
 */
export function shiftVariance(points: readonly CalibrationPoint[]): number {
  if (points.length === 0) return 0;
  let s = 0;
  for (const q of points) s += (q.truth - q.predicted) ** 2 - (q.predicted * (1 - q.predicted)) / q.n;
  return Math.max(0, s / points.length);
}

/**
 * Empirical-Bayes accuracy from probes: a beta prior of mean `mean` and variance `variance` (strength
 * s = mean (1 - mean) / variance - 1, clamped to [1, 1000]), updated with `correct` of `asked`.
 *
 * @example
 * ```ts
 * ebAccuracy(0.6, 0.6 * 0.4 / 11, 7, 10); // strength 10: (7 + 6) / 20 = 0.65
 * ```
 */
export function ebAccuracy(mean: number, variance: number, correct: number, asked: number): number {
  const m = Math.min(1 - 1e-6, Math.max(1e-6, mean));
  const s = variance > 0 ? Math.min(1000, Math.max(1, (m * (1 - m)) / variance - 1)) : 1000;
  return (correct + s * m) / (asked + s);
}

/** Number of correct probes behind a stored probe-accuracy figure: (k + s b) / (N + s) solved for k. */
export function correctProbes(probeAccuracy: number, asked: number, baseline: number, strength: number): number {
  return Math.round(probeAccuracy * (asked + strength) - strength * baseline);
}

/** Standard-normal quantile of a two-sided 95% interval. */
const Z95 = 1.959964;

/** Predictive interval pred +- z sqrt(tau^2 + pred (1 - pred) / n), clipped to [0, 1]. */
export function predictiveInterval(pred: number, tau2: number, n: number): [number, number] {
  const half = Z95 * Math.sqrt(tau2 + (pred * (1 - pred)) / n);
  return [Math.max(0, pred - half), Math.min(1, pred + half)];
}

type Cal = NonNullable<ModelOutcome["cal"]>;

/**
 * The fold results with `cal` (irt-moe-cal) filled in on every model, each fold calibrated on the folds of the
 * other categories (any seed). A category with no other category to learn from keeps w = 1 and tau^2 = 0.
 *
 * @example
 * ```ts
 * const calibrated = withCalibration(results, [0, 10, 50]);
 * ```
 */
export function withCalibration(results: readonly FoldResult[], probeCounts: readonly number[]): FoldResult[] {
  const points0 = (r: FoldResult, w: number): CalibrationPoint[] =>
    r.models.map((o) => ({
      predicted: o.meanAccuracy + w * (o.irt[0]!.accuracy - o.meanAccuracy),
      baseline: o.meanAccuracy,
      truth: o.truth,
      n: o.nTest,
    }));
  // The calibrated prediction of fold r at each probe count, given w and tau0^2 learned without r's category
  const predict = (r: FoldResult, o: ModelOutcome, w: number, tau0: number, probes: number): number => {
    const pred0 = o.meanAccuracy + w * (o.irt[0]!.accuracy - o.meanAccuracy);
    if (probes === 0) return pred0;
    const asked = o.irt[probes]!.probes;
    const k = correctProbes(o.probe[probes]!, asked, o.meanAccuracy, r.priorStrength);
    return ebAccuracy(pred0, tau0, k, asked);
  };
  const fit = (others: readonly FoldResult[]) => {
    const w = shrinkWeight(others.flatMap((r) => points0(r, 1)));
    const tau0 = shiftVariance(others.flatMap((r) => points0(r, w)));
    return { w, tau0 };
  };
  return results.map((r) => {
    const others = results.filter((x) => x.category !== r.category);
    const { w, tau0 } = fit(others);
    // tau_N^2 of each probe count from the other categories, each of those predicted with its own inner fit
    // would need a nested loop; the other folds are predicted with the same (w, tau0), learned without r.
    const tau = new Map<number, number>();
    for (const probes of probeCounts) {
      const pts = others.flatMap((x) =>
        x.models.map((o) => ({
          predicted: predict(x, o, w, tau0, probes),
          baseline: o.meanAccuracy,
          truth: o.truth,
          n: o.nTest,
        })),
      );
      tau.set(probes, shiftVariance(pts));
    }
    const models = r.models.map((o): ModelOutcome => {
      const cal: Cal = {};
      for (const probes of probeCounts) {
        const accuracy = predict(r, o, w, tau0, probes);
        const [lo, hi] = predictiveInterval(accuracy, tau.get(probes)!, o.nTest);
        cal[probes] = { accuracy, lo, hi };
      }
      return { ...o, cal };
    });
    return { ...r, models, calibration: { shrinkWeight: w, shiftVariance: tau0 } };
  });
}
