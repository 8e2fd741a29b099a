/**
 * Calibration of accuracy predictions on a benchmark the scorer never saw (docs/evaluation.md, "Predicting accuracy
 * on an unseen benchmark"). The scorer's own prediction (mean p over the items, {@link predictAccuracy}) is too sure
 * on a new kind of work: its interval carries the uncertainty about the model's ability, not the error a scorer makes
 * on a category it was not trained on (about 2-3x wider; 62-69% coverage of nominal 95% intervals). Three quantities,
 * fitted by the leave-one-category-out protocol (`npm run bench:predict`), correct it:
 *
 * - **shrinkage** w: the 0-probe prediction is b + w (p - b), b the model's accuracy on the scorer's training data
 *   (its catalog accuracy), p the scorer's prediction: w = 1 trusts the scorer, w = 0 says it adds nothing;
 * - **category-shift variance** tau^2 at 0, 10, 50 probes: the squared error of the calibrated prediction on a
 *   held-out category beyond the binomial noise of its observed accuracy;
 * - **probes**, by empirical Bayes: a beta prior centred on the 0-probe prediction with variance tau0^2, updated with
 *   the probes' outcomes.
 *
 * The interval is predictive: pred +- z sqrt(tau_N^2 + pred (1 - pred) / n) over the n items. Pure.
 */
import { z } from "zod";
import { parseWith } from "../util/validate.js";

/** Calibration constants of a scorer's accuracy predictions (pretrained/predict-calibration.json for the shipped one). */
export interface PredictCalibration {
  /** Shrinkage weight w in [0, 1] of the scorer's 0-probe prediction toward the model's catalog accuracy. */
  readonly shrinkWeight: number;
  /** Category-shift variance tau^2 by probe count (at least the count 0), interpolated linearly between counts. */
  readonly shiftVariance: Readonly<Record<string, number>>;
  /** What it was fitted on (datasets, folds, seeds), for the record. */
  readonly fittedOn: string;
}

/** The zod shape of a {@link PredictCalibration} (a file's content is checked with it). */
export const predictCalibrationSchema = z
  .object({
    shrinkWeight: z.number().min(0).max(1),
    shiftVariance: z
      .record(z.string().regex(/^\d+$/, "keys are probe counts"), z.number().min(0).max(0.25))
      .refine((r) => "0" in r, "needs the probe count 0"),
    fittedOn: z.string().min(1),
  })
  .strict();

/**
 * Shrinkage weight in [0, 1]: argmin_w sum (truth - b - w (p - b))^2 (1 when every prediction equals its baseline).
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

/** One model on one held-out category: the prediction, its baseline, the observed accuracy and its item count. */
export interface CalibrationPoint {
  readonly predicted: number;
  readonly baseline: number;
  readonly truth: number;
  readonly n: number;
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
 * ebAccuracy(0.6, (0.6 * 0.4) / 11, 7, 10); // strength 10: (7 + 6) / 20 = 0.65
 * ```
 */
export function ebAccuracy(mean: number, variance: number, correct: number, asked: number): number {
  const m = Math.min(1 - 1e-6, Math.max(1e-6, mean));
  const s = variance > 0 ? Math.min(1000, Math.max(1, (m * (1 - m)) / variance - 1)) : 1000;
  return (correct + s * m) / (asked + s);
}

/** Standard-normal quantile of a two-sided interval at `level`, by bisection on the normal CDF (erf series). */
function zOf(level: number): number {
  if (Math.abs(level - 0.95) < 1e-12) return 1.959964;
  const cdf = (x: number) => 0.5 * (1 + erf(x / Math.SQRT2));
  let lo = 0;
  let hi = 10;
  for (let k = 0; k < 80; k++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < 0.5 + level / 2) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** erf by Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7). */
function erf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

/**
 * Predictive interval pred +- z sqrt(tau^2 + pred (1 - pred) / n), clipped to [0, 1].
 *
 * @example
 * ```ts
 * predictiveInterval(0.6, 0.0036, 400); // about [0.47, 0.73]
 * ```
 */
export function predictiveInterval(pred: number, tau2: number, n: number, level = 0.95): [number, number] {
  const half = zOf(level) * Math.sqrt(tau2 + (pred * (1 - pred)) / n);
  return [Math.max(0, pred - half), Math.min(1, pred + half)];
}

/** tau^2 at `probes`: linear between the fitted counts, the nearest one outside them. */
export function shiftVarianceAt(cal: PredictCalibration, probes: number): number {
  const points = Object.entries(cal.shiftVariance)
    .map(([k, v]) => [Number(k), v] as const)
    .sort((a, b) => a[0] - b[0]);
  if (probes <= points[0]![0]) return points[0]![1];
  for (let k = 1; k < points.length; k++) {
    const [x1, y1] = points[k]!;
    const [x0, y0] = points[k - 1]!;
    if (probes <= x1) return y0 + ((probes - x0) / (x1 - x0)) * (y1 - y0);
  }
  return points[points.length - 1]![1];
}

/**
 * A known model's calibrated prediction: shrunk toward its catalog accuracy, refined by its probes' outcomes, with
 * the predictive interval over `items` items.
 *
 * @example
 * ```ts
 * const cal = { shrinkWeight: 0.8, shiftVariance: { "0": 0.006, "10": 0.004 }, fittedOn: "example" };
 * calibratedAccuracy({ calibration: cal, scorer: 0.62, baseline: 0.55, correct: 0, asked: 0, items: 300 });
 * ```
 */
export function calibratedAccuracy(args: {
  readonly calibration: PredictCalibration;
  /** The scorer's prediction (mean p over the items, before any probe). */
  readonly scorer: number;
  /** The model's accuracy on the scorer's training data. */
  readonly baseline: number;
  /** Sum of the probes' graded outcomes, and their number. */
  readonly correct: number;
  readonly asked: number;
  readonly items: number;
  readonly level?: number;
}): { accuracy: number; interval: [number, number] } {
  const cal = parseWith(predictCalibrationSchema, args.calibration, "calibration");
  const pred0 = args.baseline + cal.shrinkWeight * (args.scorer - args.baseline);
  const accuracy = args.asked > 0 ? ebAccuracy(pred0, shiftVarianceAt(cal, 0), args.correct, args.asked) : pred0;
  return { accuracy, interval: predictiveInterval(accuracy, shiftVarianceAt(cal, args.asked), args.items, args.level) };
}
