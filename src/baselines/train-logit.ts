import { createRng, shuffleInPlace } from "../util/random.js";
import type { EmbeddedLabelData, FitProgress } from "../eval/types.js";
import { sigmoid } from "../util/maths.js";
import type { LogitModel } from "./logit-model.js";

/** Optimiser settings of {@link trainLogitModel}. */
export interface LogitTrainConfig {
  /** Adam learning rate. */
  readonly learningRate: number;
  /** L2 penalty (l2 / 2) * ||w||^2 on the decayed params, added to the mean log-loss. */
  readonly l2: number;
  /** Items per minibatch. */
  readonly batchSize: number;
  readonly maxEpochs: number;
  /** Stop after this many epochs without a better validation log-loss; the best epoch's params are kept. */
  readonly patience: number;
}

export const DEFAULT_LOGIT_TRAIN: LogitTrainConfig = {
  learningRate: 3e-3,
  l2: 1e-4,
  batchSize: 64,
  maxEpochs: 40,
  patience: 3,
};

/** What {@link trainLogitModel} reports. */
export interface LogitTrainResult {
  /** Validation log-loss of the kept (best) epoch. */
  readonly valLoss: number;
  readonly bestEpoch: number;
  readonly epochs: number;
}

/**
 * Fits a {@link LogitModel} by minibatch Adam on the masked log-loss of the OBSERVED cells of the
 * train items (graded labels are soft targets; unobserved cells contribute nothing), shuffling
 * items with `seed`, early-stopping on the validation log-loss and restoring the best epoch.
 */
export function trainLogitModel(
  model: LogitModel,
  data: EmbeddedLabelData,
  split: { train: readonly number[]; val: readonly number[] },
  config: LogitTrainConfig,
  seed: number,
  onProgress?: (e: Omit<FitProgress, "method">) => void,
): LogitTrainResult {
  const { params } = model;
  const grads = params.map((p) => new Float32Array(p.length));
  const m1 = params.map((p) => new Float32Array(p.length));
  const m2 = params.map((p) => new Float32Array(p.length));
  const best = params.map((p) => Float32Array.from(p));
  const rng = createRng(seed);
  const order = Int32Array.from(split.train);
  const logits = new Float64Array(model.nModels);
  const gLogit = new Float64Array(model.nModels);
  const { offsets, model: cellModel, y, X, dim } = data;
  const beta1 = 0.9;
  const beta2 = 0.999;
  let step = 0;
  let bestLoss = validationLoss(model, data, split.val);
  let bestEpoch = 0;
  let epoch = 0;
  while (epoch < config.maxEpochs) {
    epoch++;
    shuffleInPlace(order, rng);
    let lossSum = 0;
    let cellSum = 0;
    for (let start = 0; start < order.length; start += config.batchSize) {
      const end = Math.min(order.length, start + config.batchSize);
      let cells = 0;
      for (let b = start; b < end; b++) cells += offsets[order[b]! + 1]! - offsets[order[b]!]!;
      if (cells === 0) continue;
      for (const g of grads) g.fill(0);
      for (let b = start; b < end; b++) {
        const item = order[b]!;
        const x = X.subarray(item * dim, item * dim + dim);
        model.forward(x, logits);
        gLogit.fill(0);
        for (let e = offsets[item]!; e < offsets[item + 1]!; e++) {
          const m = cellModel[e]!;
          const z = logits[m]!;
          const t = y[e]!;
          lossSum += Math.max(z, 0) - z * t + Math.log1p(Math.exp(-Math.abs(z)));
          gLogit[m] = (sigmoid(z) - t) / cells;
        }
        model.backward(x, gLogit, grads);
      }
      cellSum += cells;
      step++;
      const lr = (config.learningRate * Math.sqrt(1 - beta2 ** step)) / (1 - beta1 ** step);
      for (let k = 0; k < params.length; k++) {
        const p = params[k]!;
        const g = grads[k]!;
        const a = m1[k]!;
        const v = m2[k]!;
        const l2 = model.decay[k] ? config.l2 : 0;
        for (let j = 0; j < p.length; j++) {
          const gj = g[j]! + l2 * p[j]!;
          a[j] = beta1 * a[j]! + (1 - beta1) * gj;
          v[j] = beta2 * v[j]! + (1 - beta2) * gj * gj;
          p[j]! -= (lr * a[j]!) / (Math.sqrt(v[j]!) + 1e-8);
        }
      }
    }
    const valLoss = validationLoss(model, data, split.val);
    onProgress?.({ epoch, maxEpochs: config.maxEpochs, trainLoss: lossSum / Math.max(1, cellSum), valLoss });
    if (valLoss < bestLoss - 1e-6) {
      bestLoss = valLoss;
      bestEpoch = epoch;
      params.forEach((p, k) => best[k]!.set(p));
    } else if (epoch - bestEpoch >= config.patience) {
      break;
    }
  }
  params.forEach((p, k) => p.set(best[k]!));
  return { valLoss: bestLoss, bestEpoch, epochs: epoch };
}

/** Mean log-loss of the model over the observed cells of `rows`. */
export function validationLoss(model: LogitModel, data: EmbeddedLabelData, rows: readonly number[]): number {
  const logits = new Float64Array(model.nModels);
  let loss = 0;
  let n = 0;
  for (const item of rows) {
    model.forward(data.X.subarray(item * data.dim, item * data.dim + data.dim), logits);
    for (let e = data.offsets[item]!; e < data.offsets[item + 1]!; e++) {
      const z = logits[data.model[e]!]!;
      const t = data.y[e]!;
      loss += Math.max(z, 0) - z * t + Math.log1p(Math.exp(-Math.abs(z)));
      n++;
    }
  }
  return n > 0 ? loss / n : NaN;
}

/** `rows.length x nModels` sigmoid predictions of a fitted model. */
export function predictLogitModel(
  model: LogitModel,
  X: Float32Array,
  dim: number,
  rows: readonly number[],
): Float32Array {
  const out = new Float32Array(rows.length * model.nModels);
  const logits = new Float64Array(model.nModels);
  rows.forEach((item, r) => {
    model.forward(X.subarray(item * dim, item * dim + dim), logits);
    for (let m = 0; m < model.nModels; m++) out[r * model.nModels + m] = sigmoid(logits[m]!);
  });
  return out;
}
