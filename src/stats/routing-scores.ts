/**
 * The routing metrics, one definition each (the evaluation harness, the scorer's training and its metrics use
 * them): routing by predicted p, the best single model, a random candidate, the oracle, and the gap closed.
 */
/** Per-item outcome of routing a block of items. */
export interface RoutingOutcome {
  /** Chosen model index per row (-1 when the item has no observed candidate). */
  readonly chosen: Int32Array;
  /** Observed label of the chosen model per row (NaN when nothing was chosen). */
  readonly score: Float64Array;
}

/**
 * The routing metrics, one definition each (the evaluation harness, the scorer's training and its metrics use
 * them): routing by predicted p, the best single model, a random candidate, the oracle, and the gap closed.
 */
import { nanMean } from "./metrics.js";
import type { LabelMatrix, PredictionBlock } from "./types.js";

/**
 * Routes every item of `rows` to the observed candidate with the highest predicted p
 * (ties go to the lower model index) and scores the chosen model's observed label. Models not
 * observed on an item are never candidates for it.
 *
 * @example
 * ```ts
 * const { score } = routeByPrediction(labels, testRows, predictions, nModels);
 * const routingAccuracy = nanMean(score);
 * ```
 */
export function routeByPrediction(
  labels: LabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  nModels: number,
): RoutingOutcome {
  const chosen = new Int32Array(rows.length).fill(-1);
  const score = new Float64Array(rows.length).fill(NaN);
  rows.forEach((item, r) => {
    let best = -Infinity;
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      const m = labels.model[e]!;
      const p = pred[r * nModels + m]!;
      if (p > best || (p === best && m < chosen[r]!)) {
        best = p;
        chosen[r] = m;
        score[r] = labels.y[e]!;
      }
    }
  });
  return { chosen, score };
}

/** Mean observed accuracy of each model over `rows` (NaN for a model never observed there). */
export function modelAccuracies(labels: LabelMatrix, rows: readonly number[], nModels: number): Float64Array {
  const sum = new Float64Array(nModels);
  const cnt = new Float64Array(nModels);
  for (const i of rows) {
    for (let e = labels.offsets[i]!; e < labels.offsets[i + 1]!; e++) {
      sum[labels.model[e]!]! += labels.y[e]!;
      cnt[labels.model[e]!]!++;
    }
  }
  return sum.map((s, m) => (cnt[m]! > 0 ? s / cnt[m]! : NaN));
}

/**
 * Index of the model with the highest accuracy over `trainRows` (the protocol's best single model), among the
 * models `eligible` accepts (default: all); -1 when no eligible model is observed there. Ties go to the lower index.
 */
export function bestSingleModel(
  labels: LabelMatrix,
  trainRows: readonly number[],
  nModels: number,
  eligible: (model: number) => boolean = () => true,
): number {
  const acc = modelAccuracies(labels, trainRows, nModels);
  let best = -1;
  for (let m = 0; m < nModels; m++)
    if (eligible(m) && Number.isFinite(acc[m]!) && (best < 0 || acc[m]! > acc[best]!)) best = m;
  return best;
}

/**
 * Routing accuracy: each item of `rows` routed to its observed candidate with the highest predicted p (see
 * {@link routeByPrediction}), the chosen labels averaged over the items that have a candidate.
 */
export function routingAccuracy(
  labels: LabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  nModels: number,
): number {
  return nanMean(routeByPrediction(labels, rows, pred, nModels).score);
}

/** Per-item label of one fixed model (NaN where it is unobserved: it is scored on the items it has). */
export function singleModelScores(labels: LabelMatrix, rows: readonly number[], model: number): Float64Array {
  const out = new Float64Array(rows.length).fill(NaN);
  rows.forEach((item, r) => {
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      if (labels.model[e] === model) out[r] = labels.y[e]!;
    }
  });
  return out;
}

/** Per-item expected score of a uniformly random observed candidate (mean of the observed labels). */
export function randomChoiceScores(labels: LabelMatrix, rows: readonly number[]): Float64Array {
  return Float64Array.from(rows, (item) =>
    nanMean(labels.y.subarray(labels.offsets[item]!, labels.offsets[item + 1]!)),
  );
}

/** Per-item oracle score: the best observed label (1 if any candidate is correct, for 0/1 labels). */
export function oracleScores(labels: LabelMatrix, rows: readonly number[]): Float64Array {
  return Float64Array.from(rows, (item) => {
    let best = NaN;
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      if (!(labels.y[e]! <= best)) best = labels.y[e]!;
    }
    return best;
  });
}

/**
 * Share of the headroom above the best single model that a router recovers:
 * (router - bestSingle) / (oracle - bestSingle). NaN when the oracle does not beat the best single model.
 */
export function gapClosed(router: number, bestSingle: number, oracle: number): number {
  const headroom = oracle - bestSingle;
  return headroom > 0 ? (router - bestSingle) / headroom : NaN;
}
