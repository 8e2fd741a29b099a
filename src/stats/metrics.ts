import type { LabelMatrix, PredictionBlock } from "./types.js";

/** Number of equal-width bins of the protocol's expected calibration error. */
export const ECE_BINS = 15;

/** Correctness-prediction figures over a set of (prediction, label) pairs. */
export interface CorrectnessMetrics {
  /** Share of pairs where (p >= 0.5) equals (y >= 0.5). */
  readonly accuracy: number;
  /** ROC AUC with y >= 0.5 as the positive class; ties share their average rank. NaN if one class is absent. */
  readonly auc: number;
  /** Mean of (p - y)^2 with the raw (possibly graded) label y. */
  readonly brier: number;
  /** Expected calibration error, 15 equal-width bins of p, raw y. */
  readonly ece: number;
  /** Number of pairs. */
  readonly n: number;
}

/**
 * ROC AUC of scores `p` against labels (`y >= 0.5` is positive). Tied scores get the average
 * of their ranks (Mann-Whitney U), so a constant predictor scores exactly 0.5.
 *
 * @example
 * ```ts
 * rocAucWithTies([0.1, 0.4, 0.4, 0.8], [0, 0, 1, 1]); // 0.875
 * ```
 */
export function rocAucWithTies(p: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = p.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => p[a]! - p[b]!);
  let nPos = 0;
  let rankSumPos = 0;
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && p[order[j + 1]!] === p[order[i]!]) j++;
    const avgRank = (i + j) / 2 + 1; // 1-based average rank of the tie group
    for (let k = i; k <= j; k++) {
      if (y[order[k]!]! >= 0.5) {
        nPos++;
        rankSumPos += avgRank;
      }
    }
    i = j + 1;
  }
  const nNeg = n - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  return (rankSumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/** Mean squared error between probabilities and raw labels. */
export function brierScore(p: ArrayLike<number>, y: ArrayLike<number>): number {
  if (p.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < p.length; i++) s += (p[i]! - y[i]!) ** 2;
  return s / p.length;
}

/**
 * Expected calibration error: pairs are put in `bins` equal-width bins of p over [0, 1]
 * (p = 1 goes in the last bin); ECE = sum over bins of (bin size / n) * |mean p - mean y|.
 *
 * @example
 * ```ts
 * expectedCalibrationError([0.1, 0.1, 0.9, 0.9], [0, 0, 1, 0]); // 0.5 * 0.1 + 0.5 * 0.4 = 0.25
 * ```
 */
export function expectedCalibrationError(p: ArrayLike<number>, y: ArrayLike<number>, bins = ECE_BINS): number {
  const n = p.length;
  if (n === 0) return NaN;
  const count = new Float64Array(bins);
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  for (let i = 0; i < n; i++) {
    const b = Math.min(bins - 1, Math.max(0, Math.floor(p[i]! * bins)));
    count[b]!++;
    sumP[b]! += p[i]!;
    sumY[b]! += y[i]!;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    if (count[b]! > 0) ece += Math.abs(sumP[b]! - sumY[b]!) / n;
  }
  return ece;
}

/** Share of pairs where the thresholded prediction (p >= 0.5) equals the thresholded label (y >= 0.5). */
export function thresholdAccuracy(p: ArrayLike<number>, y: ArrayLike<number>): number {
  if (p.length === 0) return NaN;
  let hits = 0;
  for (let i = 0; i < p.length; i++) if (p[i]! >= 0.5 === y[i]! >= 0.5) hits++;
  return hits / p.length;
}

/**
 * The (prediction, label) pairs of every OBSERVED (model, item) cell of `rows`; unobserved
 * cells are skipped, never counted as wrong.
 */
export function observedCells(
  labels: LabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  nModels: number,
): { p: Float64Array; y: Float64Array } {
  let n = 0;
  for (const i of rows) n += labels.offsets[i + 1]! - labels.offsets[i]!;
  const p = new Float64Array(n);
  const y = new Float64Array(n);
  let k = 0;
  rows.forEach((item, r) => {
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      p[k] = pred[r * nModels + labels.model[e]!]!;
      y[k] = labels.y[e]!;
      k++;
    }
  });
  return { p, y };
}

/**
 * All correctness-prediction figures of the protocol over the observed cells of `rows`.
 *
 * @example
 * ```ts
 * const m = correctnessMetrics(labels, testRows, predictions, nModels);
 * console.log(m.auc, m.ece);
 * ```
 */
export function correctnessMetrics(
  labels: LabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  nModels: number,
): CorrectnessMetrics {
  const { p, y } = observedCells(labels, rows, pred, nModels);
  return {
    accuracy: thresholdAccuracy(p, y),
    auc: rocAucWithTies(p, y),
    brier: brierScore(p, y),
    ece: expectedCalibrationError(p, y),
    n: p.length,
  };
}

/** Mean of the finite entries (NaN marks "not applicable"); NaN when none. */
export function nanMean(values: ArrayLike<number>): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) {
      s += v;
      n++;
    }
  }
  return n > 0 ? s / n : NaN;
}

/** Mean and sample standard deviation (n - 1; 0 for a single value). */
export function meanSd(values: readonly number[]): { mean: number; sd: number } {
  const n = values.length;
  if (n === 0) return { mean: NaN, sd: NaN };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, sd: 0 };
  const v = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, sd: Math.sqrt(v) };
}

/** Pearson correlation coefficient. */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return sab / Math.sqrt(saa * sbb);
}

/** Mean binary cross-entropy with soft targets. */
export function logLoss(p: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const q = Math.min(1 - 1e-7, Math.max(1e-7, p[i]!));
    s -= y[i]! * Math.log(q) + (1 - y[i]!) * Math.log(1 - q);
  }
  return s / Math.max(1, p.length);
}
