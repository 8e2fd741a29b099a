/**
 * The inner loop of {@link trainIrtMoe}: the trained variables with their AdamW moments and Polyak average, one
 * batch's inputs (with input noise and dropout masks drawn from the run's generator), one optimiser step, and one
 * pass over the shuffled training items. The draw order of the generator is part of the result: the same seed
 * gives the same weights.
 */
import type { Tensor, Tensor2D, Variable } from "@tensorflow/tfjs";
import type { Tf } from "../util/tf.js";
import type { IrtMoeConfig } from "./config.js";
import {
  createVars,
  disposeVars,
  forwardGraph,
  listVars,
  makeOps,
  maskedBce,
  maskedListwise,
  type GraphOps,
  type GraphVars,
} from "./graph.js";
import type { Rng } from "../util/random.js";
import type { EmbeddedLabels, TrainOptions } from "./train-types.js";
import type { IrtMoeWeights } from "./weights.js";

/**
 * A trainable layer in front of the scorer that makes the query vectors from the items (e.g. learned per-piece
 * weights of the static encoder), trained jointly with it. Its variables get the scorer's AdamW step and weight
 * decay (towards 0) but no Polyak average.
 */
export interface TrainableInput {
  readonly variables: readonly Variable[];
  /** Multiplies the learning rate of `variables` (default 1). */
  readonly learningRateScale?: number;
  /** The vectors of the given items (rows.length x dim) as a differentiable function of `variables`. */
  forward(rows: readonly number[]): Tensor2D;
  /** The vectors of every item (nItems x dim, row-major) with the current variables, without gradients. */
  embedAll(): Float32Array;
  /** A copy of the variables' values (to keep the best epoch's). */
  read(): Float32Array;
  /** Sets the variables to values from {@link TrainableInput.read}. */
  write(values: Float32Array): void;
  dispose(): void;
}

/** The variables being trained, their exponential moving average (when `emaDecay` > 0) and the AdamW moments. */
export interface TrainState {
  readonly tf: Tf;
  readonly ops: GraphOps;
  readonly vars: GraphVars;
  readonly varList: readonly { readonly variable: Variable; readonly decay: boolean; readonly lrScale?: number }[];
  /** Polyak averaging: a second set of variables tracking an exponential moving average of the weights. */
  readonly ema: GraphVars | undefined;
  readonly emaList: readonly { readonly variable: Variable; readonly decay: boolean }[];
  readonly m: Variable[];
  readonly v: Variable[];
  /** The trainable input layer, when the query vectors are learned too (its variables end `varList`). */
  readonly input: TrainableInput | undefined;
  /** Optimiser steps taken so far (1-based after the first step). */
  step: number;
}

const b1 = 0.9;
const b2 = 0.999;
const eps = 1e-8;

export function createTrainState(tf: Tf, init: IrtMoeWeights, cfg: IrtMoeConfig, input?: TrainableInput): TrainState {
  const ops = makeOps(tf);
  const vars = createVars(tf, init);
  const lrScale = input?.learningRateScale ?? 1;
  const varList = [
    ...listVars(vars),
    ...(input?.variables ?? []).map((variable) => ({ variable, decay: true, lrScale })),
  ];
  const ema = cfg.emaDecay > 0 ? createVars(tf, init) : undefined;
  return {
    tf,
    ops,
    vars,
    varList,
    ema,
    emaList: ema ? listVars(ema) : [],
    m: varList.map(({ variable }) => tf.tidy(() => tf.variable(tf.zerosLike(variable), false))),
    v: varList.map(({ variable }) => tf.tidy(() => tf.variable(tf.zerosLike(variable), false))),
    input,
    step: 0,
  };
}

export function disposeTrainState(state: TrainState): void {
  disposeVars(state.vars);
  if (state.ema) disposeVars(state.ema);
  state.m.forEach((t) => t.dispose());
  state.v.forEach((t) => t.dispose());
}

/** One batch: inputs with noise, soft targets and their mask (nb x nModels), one dropout mask per layer. */
interface Batch {
  readonly rows: readonly number[];
  readonly nb: number;
  readonly xb: Float32Array;
  readonly yb: Float32Array;
  readonly mb: Float32Array;
  readonly masks: readonly Float32Array[];
}

/**
 * Draws, in this order: each row's input noise, then the dropout masks (gate and every expert). `xb` holds the rows'
 * vectors plus noise, or the noise alone when `noiseOnly` (a trainable input makes the vectors).
 */
function assembleBatch(
  data: EmbeddedLabels,
  rows: readonly number[],
  cfg: IrtMoeConfig,
  rng: Rng,
  noiseOnly: boolean,
): Batch {
  const { dim, nModels, offsets, model, y } = data;
  const nb = rows.length;
  const xb = new Float32Array(nb * dim);
  const yb = new Float32Array(nb * nModels);
  const mb = new Float32Array(nb * nModels);
  rows.forEach((i, r) => {
    const base = i * dim;
    const o = r * dim;
    for (let c = 0; c < dim; c++)
      xb[o + c] = (noiseOnly ? 0 : data.X[base + c]!) + (cfg.inputNoise > 0 ? cfg.inputNoise * rng.normal() : 0);
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) {
      yb[r * nModels + model[j]!] = y[j]!;
      mb[r * nModels + model[j]!] = 1;
    }
  });
  const masks: Float32Array[] = [];
  if (cfg.dropout > 0) {
    const keep = 1 - cfg.dropout;
    for (let k = 0; k <= cfg.experts; k++) {
      const m = new Float32Array(nb * cfg.hidden);
      for (let c = 0; c < m.length; c++) m[c] = rng.next() < keep ? 1 / keep : 0;
      masks.push(m);
    }
  }
  return { rows, nb, xb, yb, mb, masks };
}

/** One AdamW step (decoupled weight decay on the decaying variables) at learning rate `lr`; returns the batch loss. */
function adamStep(
  state: TrainState,
  cfg: IrtMoeConfig,
  batch: Batch,
  nModels: number,
  dim: number,
  lr: number,
): number {
  const { tf, ops, vars, varList, emaList, input } = state;
  const { nb } = batch;
  const loss = tf.tidy(() => {
    const x = tf.tensor2d(batch.xb, [nb, dim]);
    const yt = tf.tensor2d(batch.yb, [nb, nModels]);
    const mt = tf.tensor2d(batch.mb, [nb, nModels]);
    const dropout = batch.masks.map((m) => tf.tensor2d(m, [nb, cfg.hidden]));
    const f = () => {
      const xin = input ? (tf.add(input.forward(batch.rows), x) as Tensor2D) : x;
      const logits = forwardGraph(tf, ops, vars, xin, { dropout }, !input).logits;
      const bce = maskedBce(tf, logits, yt, mt);
      return (
        cfg.rankWeight > 0 ? tf.add(bce, tf.mul(maskedListwise(tf, logits, yt, mt), cfg.rankWeight)) : bce
      ) as Tensor & { rank: 0 };
    };
    const { value, grads } = tf.variableGrads(
      f as any,
      varList.map((v) => v.variable),
    );
    const c1 = 1 - Math.pow(b1, state.step);
    const c2 = 1 - Math.pow(b2, state.step);
    varList.forEach(({ variable, decay, lrScale }, idx) => {
      const g = grads[variable.name]!;
      const m = state.m[idx]!;
      const v = state.v[idx]!;
      m.assign(tf.add(tf.mul(m, b1), tf.mul(g, 1 - b1)));
      v.assign(tf.add(tf.mul(v, b2), tf.mul(tf.square(g), 1 - b2)));
      let upd: Tensor = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), eps));
      if (decay && cfg.weightDecay > 0) upd = tf.add(upd, tf.mul(variable, cfg.weightDecay));
      variable.assign(tf.sub(variable, tf.mul(upd, lr * (lrScale ?? 1))));
      const avg = emaList[idx]?.variable;
      if (avg) avg.assign(tf.add(tf.mul(avg, cfg.emaDecay), tf.mul(variable, 1 - cfg.emaDecay)));
    });
    return value;
  });
  const lv = loss.dataSync()[0]!;
  loss.dispose();
  return lv;
}

/**
 * One pass over the shuffled training rows in batches of `batchItems`, with linear warm-up of the learning rate over
 * the first `warmupSteps` steps. Returns the item-weighted mean loss and the learning rate of the last step.
 */
export function trainEpoch(
  state: TrainState,
  cfg: IrtMoeConfig,
  data: EmbeddedLabels,
  trainRows: readonly number[],
  rng: Rng,
  epoch: number,
  schedule: { readonly lrBase: number; readonly warmupSteps: number },
  onBatch: TrainOptions["onBatch"],
): { trainLoss: number; lr: number } {
  const B = cfg.batchItems;
  const { lrBase, warmupSteps } = schedule;
  const order = rng.shuffle([...trainRows]);
  let lossSum = 0;
  let lossN = 0;
  let lr = lrBase;
  for (let s = 0; s < order.length; s += B) {
    const batch = assembleBatch(data, order.slice(s, s + B), cfg, rng, state.input !== undefined);
    state.step++;
    lr = state.step <= warmupSteps ? (lrBase * state.step) / warmupSteps : lrBase;
    const lv = adamStep(state, cfg, batch, data.nModels, data.dim, lr);
    lossSum += lv * batch.nb;
    lossN += batch.nb;
    onBatch?.({ epoch, itemsDone: Math.min(order.length, s + B), itemsTotal: order.length, loss: lv });
  }
  return { trainLoss: lossSum / Math.max(1, lossN), lr };
}
