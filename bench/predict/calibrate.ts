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
 * Pure; it needs only the figures each fold caches (bench/predict/fold-run.ts), so no scorer is retrained. The rules
 * live in src/learning/predict-calibration.ts, which the library's `predictAccuracy` applies with the constants
 * {@link fitPredictCalibration} fits on every fold (pretrained/predict-calibration.json).
 */
import type { FoldResult, ModelOutcome } from "./fold-run.js";
import {
  ebAccuracy,
  predictiveInterval,
  shiftVariance,
  shrinkWeight,
  type CalibrationPoint,
  type PredictCalibration,
} from "../../src/learning/interval-calibration.js";

export {
  ebAccuracy,
  shiftVariance,
  shrinkWeight,
  type CalibrationPoint,
} from "../../src/learning/interval-calibration.js";

/** Number of correct probes behind a stored probe-accuracy figure: (k + s b) / (N + s) solved for k. */
export function correctProbes(probeAccuracy: number, asked: number, baseline: number, strength: number): number {
  return Math.round(probeAccuracy * (asked + strength) - strength * baseline);
}

export { predictiveInterval };

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

/**
 * The calibration constants fitted on every fold given (all categories, all seeds): what the library applies to a
 * benchmark none of them is (`predictAccuracy({ calibration })`; pretrained/predict-calibration.json).
 *
 * @example
 * ```ts
 * const cal = fitPredictCalibration(results, [0, 10, 50], "MMLU-Pro and RouterDC, leave one category out, seeds 1-2");
 * ```
 */
export function fitPredictCalibration(
  results: readonly FoldResult[],
  probeCounts: readonly number[],
  fittedOn: string,
): PredictCalibration {
  const points = (w: number): CalibrationPoint[] =>
    results.flatMap((r) =>
      r.models.map((o) => ({
        predicted: o.meanAccuracy + w * (o.irt[0]!.accuracy - o.meanAccuracy),
        baseline: o.meanAccuracy,
        truth: o.truth,
        n: o.nTest,
      })),
    );
  const w = shrinkWeight(points(1));
  const tau0 = shiftVariance(points(w));
  const shift: Record<string, number> = {};
  for (const probes of probeCounts) {
    const pts = results.flatMap((r) =>
      r.models.map((o) => {
        const pred0 = o.meanAccuracy + w * (o.irt[0]!.accuracy - o.meanAccuracy);
        let predicted = pred0;
        if (probes > 0) {
          const asked = o.irt[probes]!.probes;
          const k = correctProbes(o.probe[probes]!, asked, o.meanAccuracy, r.priorStrength);
          predicted = ebAccuracy(pred0, tau0, k, asked);
        }
        return { predicted, baseline: o.meanAccuracy, truth: o.truth, n: o.nTest };
      }),
    );
    shift[String(probes)] = shiftVariance(pts);
  }
  return { shrinkWeight: w, shiftVariance: shift, fittedOn };
}
