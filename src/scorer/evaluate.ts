/**
 * The protocol's correctness and routing metrics of a scorer on a set of items, plus the reference points
 * (best single model by train accuracy, random, oracle) and the interpretability figure (Pearson r of beta
 * with empirical difficulty). The routing metrics themselves are those of src/stats/routing-scores.ts; the evaluation harness
 * (src/eval) reports the full comparison with baselines.
 */
import type { EmbeddedLabels } from "./train.js";
import { nanMean, pearson } from "../stats/metrics.js";
import { bestSingleModel, oracleScores, randomChoiceScores, singleModelScores } from "../stats/routing-scores.js";
import { ece, observedPairs, rocAuc, routingAccuracy } from "./metrics.js";

/** Metrics of predictions `p` (rows.length x nModels) on `rows`. */
export interface ScorerMetrics {
  items: number;
  pairs: number;
  routingAccuracy: number;
  auc: number;
  accuracy: number;
  brier: number;
  ece: number;
  bestSingle: number;
  bestSingleModel: string;
  random: number;
  oracle: number;
  gapClosed: number;
}

/**
 * Metrics on `rows`. The best single model is the one with the highest accuracy on `trainRows`
 * among models observed on `rows` (scored on the items it has).
 */
export function scorerMetrics(
  p: Float32Array,
  data: EmbeddedLabels,
  rows: readonly number[],
  trainRows: readonly number[],
): ScorerMetrics {
  const M = data.nModels;
  const pairs = observedPairs(p, M, data, rows);
  let correct = 0;
  let brier = 0;
  for (let i = 0; i < pairs.p.length; i++) {
    correct += (pairs.p[i]! >= 0.5 ? 1 : 0) === (pairs.y[i]! >= 0.5 ? 1 : 0) ? 1 : 0;
    brier += (pairs.p[i]! - pairs.y[i]!) ** 2;
  }
  const present = new Uint8Array(M);
  for (const i of rows) for (let j = data.offsets[i]!; j < data.offsets[i + 1]!; j++) present[data.model[j]!] = 1;
  const best = bestSingleModel(data, trainRows, M, (m) => present[m] === 1);
  let items = 0;
  for (const i of rows) if (data.offsets[i + 1]! > data.offsets[i]!) items++;
  const bestSingle = nanMean(singleModelScores(data, rows, best));
  const oracle = nanMean(oracleScores(data, rows));
  const random = nanMean(randomChoiceScores(data, rows));
  const routing = routingAccuracy(p, M, data, rows);
  return {
    items,
    pairs: pairs.p.length,
    routingAccuracy: routing,
    auc: rocAuc(pairs.p, pairs.y),
    accuracy: correct / pairs.p.length,
    brier: brier / pairs.p.length,
    ece: ece(pairs.p, pairs.y),
    bestSingle,
    bestSingleModel: best >= 0 ? (data.models?.[best] ?? `model-${best}`) : "",
    random,
    oracle,
    gapClosed: (routing - bestSingle) / (oracle - bestSingle),
  };
}

/** Pearson r between beta_q and empirical difficulty (1 - mean observed correctness) over `rows`. */
export function betaDifficultyR(betas: ArrayLike<number>, data: EmbeddedLabels, rows: readonly number[]): number {
  const b: number[] = [];
  const d: number[] = [];
  rows.forEach((i, r) => {
    const lo = data.offsets[i]!;
    const hi = data.offsets[i + 1]!;
    if (hi === lo) return;
    let s = 0;
    for (let j = lo; j < hi; j++) s += data.y[j]!;
    b.push(betas[r]!);
    d.push(1 - s / (hi - lo));
  });
  return pearson(b, d);
}

/**
 * beta_q - alpha_q . mean(theta_m over `models`): minus the logit of an average model of the set, a
 * difficulty that does not depend on how the fit splits the offset between alpha . theta and beta.
 */
export function effectiveDifficulty(
  params: { alpha: Float32Array; beta: number },
  theta: Float32Array,
  models: readonly number[],
): number {
  const d = params.alpha.length;
  let z = 0;
  for (const m of models) for (let k = 0; k < d; k++) z += params.alpha[k]! * theta[m * d + k]!;
  return params.beta - z / models.length;
}
