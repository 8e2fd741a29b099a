/**
 * Training of the IRT-MoE scorer with tfjs (wasm backend in Node): batches over items, masked soft-target
 * BCE, AdamW with warm-up and reduce-on-plateau, early stopping on validation with the best epoch restored,
 * then temperature scaling on validation. All randomness (init, shuffles, dropout, input noise) comes from
 * one seeded generator, so the same machine and seed give the same weights.
 */
import type { Tensor2D } from "@tensorflow/tfjs";
import { z } from "zod";
import type { Tf } from "../util/tf.js";
import { TrainingError, ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { fitTemperature, type CalibrationReport } from "./temperature-scaling.js";
import { resolveIrtMoeConfig, type IrtMoeConfig } from "./config.js";
import { forwardGraph, readVars, type GraphOps, type GraphVars } from "./graph.js";
import { ece, logLoss, observedPairs, rocAuc, routingAccuracy } from "./metrics.js";
import { sigmoid } from "../util/maths.js";
import { trainingRng, type Rng } from "../util/random.js";
import { createTrainState, disposeTrainState, trainEpoch, type TrainableInput, type TrainState } from "./train-loop.js";
import { initWeights, type IrtMoeWeights } from "./weights.js";

import type { EmbeddedLabels, EpochReport, TrainOptions } from "./train-types.js";

export type { EmbeddedLabels, EpochReport, TrainOptions } from "./train-types.js";
export { DEFAULT_IRT_MOE_CONFIG, resolveIrtMoeConfig, type IrtMoeConfig } from "./config.js";

/** A trained scorer: weights plus how it was obtained. */
export interface TrainedIrtMoe {
  weights: IrtMoeWeights;
  config: IrtMoeConfig;
  /** Temperature applied to logits at prediction time (1 when calibration did not help). */
  temperature: number;
  history: EpochReport[];
  calibration: CalibrationReport;
  /** Epoch (1-based) whose weights were kept. */
  bestEpoch: number;
  seed: number;
  /** Validation metrics of the kept weights, after calibration. */
  val: { loss: number; auc: number; routing: number; ece: number };
  trainSeconds: number;
}

const optionsSchema = z
  .object({
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    onEpoch: z.function().optional(),
    onBatch: z.function().optional(),
  })
  .strict();

function checkData(data: EmbeddedLabels, split: { train: readonly number[]; val: readonly number[] }): void {
  const fail = (path: string, msg: string) => {
    throw new ValidationError(`Invalid training data: ${path}: ${msg}`, { path: `data.${path}` });
  };
  const { X, dim, nItems, nModels, offsets, model, y } = data;
  if (!Number.isInteger(dim) || dim < 1) fail("dim", `must be a positive integer, got ${dim}`);
  if (!Number.isInteger(nItems) || nItems < 1) fail("nItems", `must be a positive integer, got ${nItems}`);
  if (!Number.isInteger(nModels) || nModels < 1) fail("nModels", `must be a positive integer, got ${nModels}`);
  if (X.length !== nItems * dim) fail("X", `length ${X.length} != nItems * dim = ${nItems * dim}`);
  if (offsets.length !== nItems + 1) fail("offsets", `length ${offsets.length} != nItems + 1 = ${nItems + 1}`);
  if (offsets[0] !== 0 || offsets[nItems] !== model.length || model.length !== y.length)
    fail("offsets", "must start at 0 and end at model.length (= y.length)");
  for (let i = 0; i < nItems; i++)
    if (offsets[i + 1]! < offsets[i]!) fail(`offsets.${i + 1}`, "offsets must be non-decreasing");
  for (let j = 0; j < model.length; j++) {
    if (model[j]! < 0 || model[j]! >= nModels) fail(`model.${j}`, `model index ${model[j]} outside 0..${nModels - 1}`);
    if (!(y[j]! >= 0 && y[j]! <= 1)) fail(`y.${j}`, `label ${y[j]} is not a number in [0, 1]`);
  }
  for (let j = 0; j < X.length; j++) if (!Number.isFinite(X[j]!)) fail(`X.${j}`, "embedding values must be finite");
  if (data.models && data.models.length !== nModels)
    fail("models", `has ${data.models.length} ids for nModels = ${nModels}`);
  for (const name of ["train", "val"] as const) {
    const rows = split[name];
    if (rows.length === 0)
      throw new ValidationError(
        `split.${name} is empty (${split.train.length} train rows, ${split.val.length} val rows): training fits on ` +
          `split.train and stops early on split.val, so give each at least one row (the protocol's split sends about ` +
          `1 item in 10 to val: docs/your-own-data.md#split)`,
        { path: `split.${name}` },
      );
    for (const r of rows)
      if (!Number.isInteger(r) || r < 0 || r >= nItems) fail(`split.${name}`, `row ${r} outside 0..${nItems - 1}`);
  }
}

/** Logits (rows.length x nModels) of the given rows in eval mode (no dropout, no noise), in chunks. */
export function graphLogits(
  tf: Tf,
  ops: GraphOps,
  vars: GraphVars,
  data: { X: Float32Array; dim: number },
  rows: readonly number[],
  nModels: number,
  chunk = 512,
): Float32Array {
  const out = new Float32Array(rows.length * nModels);
  for (let s = 0; s < rows.length; s += chunk) {
    const part = rows.slice(s, s + chunk);
    const xb = new Float32Array(part.length * data.dim);
    part.forEach((i, r) => xb.set(data.X.subarray(i * data.dim, (i + 1) * data.dim), r * data.dim));
    const z = tf.tidy(() => forwardGraph(tf, ops, vars, tf.tensor2d(xb, [part.length, data.dim])).logits);
    out.set(z.dataSync(), s * nModels);
    z.dispose();
  }
  return out;
}

function sigmoidArray(z: Float32Array, t = 1): Float32Array {
  const p = new Float32Array(z.length);
  for (let i = 0; i < z.length; i++) {
    p[i] = sigmoid(z[i]! / t);
  }
  return p;
}

/**
 * Trains an IRT-MoE scorer on the `train` rows, early-stopping on the `val` rows.
 *
 * @example
 * const { tf } = await getTf();
 * const trained = await trainIrtMoe(tf, data, { train, val }, { experts: 8 }, { seed: 1, onEpoch: console.log });
 * const p = predictItems(trained, data.X, test); // test.length x nModels
 */
export async function trainIrtMoe(
  tf: Tf,
  data: EmbeddedLabels,
  split: { train: readonly number[]; val: readonly number[] },
  config: Partial<IrtMoeConfig> = {},
  options: TrainOptions = {},
): Promise<TrainedIrtMoe> {
  return trainIrtMoeWith(tf, data, split, config, options);
}

/**
 * {@link trainIrtMoe} with a trainable input layer trained jointly with the scorer (`data.X` then only seeds the
 * validation of epoch 0 and the data checks; each epoch's validation uses `input.embedAll()`). On return the input
 * holds the kept (best) epoch's values.
 *
 * @example
 * const input = pieceWeightInput(tf, { bags, table, trainRows: split.train });
 * const trained = await trainIrtMoeWith(tf, data, split, {}, { seed: 1 }, input);
 */
export async function trainIrtMoeWith(
  tf: Tf,
  data: EmbeddedLabels,
  split: { train: readonly number[]; val: readonly number[] },
  config: Partial<IrtMoeConfig> = {},
  options: TrainOptions = {},
  input?: TrainableInput,
): Promise<TrainedIrtMoe> {
  const cfg = resolveIrtMoeConfig(config);
  parseWith(optionsSchema, options, "options");
  checkData(data, split);
  const seed = options.seed ?? 1;
  const rng = trainingRng(seed);
  const { trainRows, valRows } = labelledRows(data, split);
  const init = initialWeights(rng, data, cfg, trainRows);
  const t0 = performance.now();
  const state = createTrainState(tf, init, cfg, input);
  let fit: EpochsResult;
  try {
    fit = await fitEpochs(state, cfg, data, { trainRows, valRows }, rng, init, options);
  } finally {
    disposeTrainState(state);
  }
  if (fit.best.epoch === 0) throw noUsableScorer(cfg, fit.history);
  if (input && fit.best.input) input.write(fit.best.input);
  const { val, ...kept } = calibrated(cfg, data, valRows, fit);
  return { ...kept, seed, val, trainSeconds: (performance.now() - t0) / 1000 };
}

/** The train and val rows that have at least one label (the others teach nothing and score nothing). */
function labelledRows(
  data: EmbeddedLabels,
  split: { train: readonly number[]; val: readonly number[] },
): { trainRows: number[]; valRows: number[] } {
  const { offsets } = data;
  const labelled = (i: number) => offsets[i + 1]! > offsets[i]!;
  const trainRows = split.train.filter(labelled);
  const valRows = split.val.filter(labelled);
  if (trainRows.length === 0 || valRows.length === 0)
    throw new ValidationError("Training needs at least one labelled item in both the train and the val split", {
      path: "split",
    });
  return { trainRows, valRows };
}

/** The initial weights (the first draws of the run's generator), with the mean train label as the output bias. */
function initialWeights(
  rng: Rng,
  data: EmbeddedLabels,
  cfg: IrtMoeConfig,
  trainRows: readonly number[],
): IrtMoeWeights {
  const { dim, nModels, offsets, y } = data;
  const models = data.models ?? Array.from({ length: nModels }, (_, m) => `model-${m}`);
  let ySum = 0;
  let yN = 0;
  for (const i of trainRows) {
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) {
      ySum += y[j]!;
      yN++;
    }
  }
  return initWeights(
    rng,
    { inDim: dim, experts: cfg.experts, hidden: cfg.hidden, out: cfg.out, abilityDim: cfg.abilityDim },
    models,
    ySum / yN,
  );
}

/** The best epoch so far on the early-stopping criterion, with its weights and validation logits. */
interface BestEpoch {
  score: number;
  epoch: number;
  weights: IrtMoeWeights;
  valLogits: Float32Array;
  /** The trainable input's values at this epoch, when there is one. */
  input?: Float32Array;
}

interface EpochsResult {
  readonly best: BestEpoch;
  readonly history: EpochReport[];
}

/**
 * The epochs: train, score on val, keep the best weights, halve the learning rate after `lrPatience` epochs without
 * improvement and stop after `patience`.
 */
async function fitEpochs(
  state: TrainState,
  cfg: IrtMoeConfig,
  data: EmbeddedLabels,
  rows: { readonly trainRows: readonly number[]; readonly valRows: readonly number[] },
  rng: Rng,
  init: IrtMoeWeights,
  options: TrainOptions,
): Promise<EpochsResult> {
  const stepsPerEpoch = Math.ceil(rows.trainRows.length / cfg.batchItems);
  const warmupSteps = Math.round(cfg.warmupEpochs * stepsPerEpoch);
  let lrBase = cfg.learningRate;
  let best: BestEpoch = { score: -Infinity, epoch: 0, weights: init, valLogits: new Float32Array(0) };
  let sinceBest = 0;
  let sinceLrDrop = 0;
  const history: EpochReport[] = [];
  for (let epoch = 1; epoch <= cfg.maxEpochs; epoch++) {
    const te = performance.now();
    const { trainLoss, lr } = trainEpoch(
      state,
      cfg,
      data,
      rows.trainRows,
      rng,
      epoch,
      { lrBase, warmupSteps },
      options.onBatch,
    );
    const evalVars = state.ema ?? state.vars;
    const epochData = state.input ? { ...data, X: state.input.embedAll() } : data;
    const val = validationScores(state, evalVars, epochData, rows.valRows);
    const score = cfg.earlyStopOn === "loss" ? -val.valLoss : cfg.earlyStopOn === "auc" ? val.valAuc : val.valRouting;
    const improved = score > best.score + 1e-6;
    if (improved) {
      best = { score, epoch, weights: readVars(evalVars, init), valLogits: val.valLogits };
      if (state.input) best.input = state.input.read();
      sinceBest = 0;
      sinceLrDrop = 0;
    } else {
      sinceBest++;
      sinceLrDrop++;
    }
    const { valLoss, valAuc, valRouting } = val;
    const report: EpochReport = {
      epoch,
      trainLoss,
      valLoss,
      valAuc,
      valRouting,
      learningRate: lr,
      improved,
      seconds: (performance.now() - te) / 1000,
    };
    history.push(report);
    options.onEpoch?.(report);
    if (sinceBest >= cfg.patience) break;
    if (sinceLrDrop >= cfg.lrPatience) {
      lrBase /= 2;
      sinceLrDrop = 0;
    }
    await new Promise((r) => setImmediate(r));
  }
  return { best, history };
}

/** Validation logits of the evaluated variables (the average when there is one) and the early-stopping figures. */
function validationScores(
  state: TrainState,
  evalVars: GraphVars,
  data: EmbeddedLabels,
  valRows: readonly number[],
): { valLogits: Float32Array; valLoss: number; valAuc: number; valRouting: number } {
  const nModels = data.nModels;
  const valLogits = graphLogits(state.tf, state.ops, evalVars, data, valRows, nModels);
  const pVal = sigmoidArray(valLogits);
  const pairs = observedPairs(pVal, nModels, data, valRows);
  return {
    valLogits,
    valLoss: logLoss(pairs.p, pairs.y),
    valAuc: rocAuc(pairs.p, pairs.y),
    valRouting: routingAccuracy(pVal, nModels, data, valRows),
  };
}

/** No epoch gave a finite validation score: returning the initial weights would pass off an untrained scorer. */
function noUsableScorer(cfg: IrtMoeConfig, history: readonly EpochReport[]): TrainingError {
  const last = history[history.length - 1];
  return new TrainingError(
    `Training produced no usable scorer: the validation ${cfg.earlyStopOn} was not a finite number in any of ${history.length} epoch(s) ` +
      `(last: loss ${last?.valLoss}, AUC ${last?.valAuc}, routing ${last?.valRouting}). ` +
      (cfg.earlyStopOn === "auc"
        ? 'AUC needs both outcomes among the validation labels; use earlyStopOn "loss" or a validation split with both.'
        : "The training diverged: lower learningRate, or check the labels and embeddings for non-finite values."),
    {
      path: cfg.earlyStopOn === "auc" ? "config.earlyStopOn" : "config.learningRate",
      details: { earlyStopOn: cfg.earlyStopOn, epochs: history.length },
    },
  );
}

/** Temperature scaling on validation (kept only if it lowers validation ECE) and the kept weights' validation metrics. */
function calibrated(
  cfg: IrtMoeConfig,
  data: EmbeddedLabels,
  valRows: readonly number[],
  fit: EpochsResult,
): Omit<TrainedIrtMoe, "seed" | "trainSeconds"> {
  const { best, history } = fit;
  const nModels = data.nModels;
  const valPairsLabels = observedPairs(new Float32Array(valRows.length * nModels), nModels, data, valRows).y;
  const valZ = observedPairs(best.valLogits, nModels, data, valRows).p;
  const calibration = cfg.calibrate
    ? fitTemperature(valZ, valPairsLabels)
    : (() => {
        const e = ece(sigmoidArray(Float32Array.from(valZ)), valPairsLabels);
        return { temperature: 1, fitted: 1, applied: false, eceBefore: e, eceAfter: e };
      })();
  const temperature = calibration.temperature;
  const pBest = sigmoidArray(best.valLogits, temperature);
  const pairs = observedPairs(pBest, nModels, data, valRows);
  return {
    weights: best.weights,
    config: cfg,
    temperature,
    history,
    calibration,
    bestEpoch: best.epoch,
    val: {
      loss: logLoss(pairs.p, pairs.y),
      auc: rocAuc(pairs.p, pairs.y),
      routing: routingAccuracy(pBest, nModels, data, valRows),
      ece: ece(pairs.p, pairs.y),
    },
  };
}

export { predictItems, itemParamsOf } from "./forward.js";
export type { IrtMoeWeights } from "./weights.js";
export type { Tensor2D };
