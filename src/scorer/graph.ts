/**
 * The tfjs training graph of the IRT-MoE scorer. Mirrors the plain typed-array forward pass in
 * expert.ts / mixture.ts / irt-head.ts, with custom dense gradients (tf.customGrad) that use
 * explicit transposes (transpose-flagged matMul is 10-30x slower on the wasm backend) and one
 * weight matrix per expert (no column slices).
 */
import type { Tensor, Tensor1D, Tensor2D, Variable } from "@tensorflow/tfjs";
import type { Tf } from "../util/tf.js";
import type { DenseWeights, ExpertWeights, IrtMoeWeights } from "./weights.js";

/** tf.Variables of one dense layer. */
export interface DenseVars {
  W: Variable;
  b: Variable;
}
export interface ExpertVars {
  l1: DenseVars;
  l2: DenseVars;
}
/** Every trainable variable of the graph. */
export interface GraphVars {
  experts: ExpertVars[];
  shared: ExpertVars;
  gate: DenseVars;
  alpha: DenseVars;
  beta: DenseVars;
  theta: Variable;
}

/** Creates tf.Variables holding a copy of `w`. */
export function createVars(tf: Tf, w: IrtMoeWeights): GraphVars {
  // tf.variable keeps its initial tensor alive (and counted) until that tensor is disposed: tidy disposes it.
  const variable = (make: () => Tensor): Variable => tf.tidy(() => tf.variable(make()));
  const d = (x: DenseWeights): DenseVars => ({
    W: variable(() => tf.tensor2d(x.W, [x.inDim, x.outDim])),
    b: variable(() => tf.tensor1d(x.b)),
  });
  const e = (x: ExpertWeights): ExpertVars => ({ l1: d(x.l1), l2: d(x.l2) });
  return {
    experts: w.experts.map(e),
    shared: e(w.shared),
    gate: d(w.gate),
    alpha: d(w.alpha),
    beta: d(w.beta),
    theta: variable(() => tf.tensor2d(w.theta, [w.models.length, w.alpha.outDim])),
  };
}

/** Variables in a fixed order, with whether each gets weight decay (matrices and abilities: yes; biases: no). */
export function listVars(v: GraphVars): { variable: Variable; decay: boolean }[] {
  const out: { variable: Variable; decay: boolean }[] = [];
  const d = (x: DenseVars) => out.push({ variable: x.W, decay: true }, { variable: x.b, decay: false });
  const e = (x: ExpertVars) => {
    d(x.l1);
    d(x.l2);
  };
  v.experts.forEach(e);
  e(v.shared);
  d(v.gate);
  d(v.alpha);
  d(v.beta);
  out.push({ variable: v.theta, decay: true });
  return out;
}

/** Reads the variables back into plain typed arrays. */
export function readVars(v: GraphVars, like: IrtMoeWeights): IrtMoeWeights {
  const d = (x: DenseVars, l: DenseWeights): DenseWeights => ({
    inDim: l.inDim,
    outDim: l.outDim,
    W: x.W.dataSync() as Float32Array,
    b: x.b.dataSync() as Float32Array,
  });
  const e = (x: ExpertVars, l: ExpertWeights): ExpertWeights => ({ l1: d(x.l1, l.l1), l2: d(x.l2, l.l2) });
  return {
    inDim: like.inDim,
    experts: v.experts.map((x, k) => e(x, like.experts[k]!)),
    shared: e(v.shared, like.shared),
    gate: d(v.gate, like.gate),
    alpha: d(v.alpha, like.alpha),
    beta: d(v.beta, like.beta),
    models: [...like.models],
    theta: v.theta.dataSync() as Float32Array,
  };
}

export function disposeVars(v: GraphVars): void {
  for (const { variable } of listVars(v)) variable.dispose();
}

/** The custom-gradient ops used by the graph. */
export interface GraphOps {
  /** y = x W + b; gradients for x, W and b. */
  dense(x: Tensor2D, W: Tensor2D, b: Tensor1D): Tensor2D;
  /** y = x W + b where x is data (no gradient for x is computed). */
  denseData(x: Tensor2D, W: Tensor2D, b: Tensor1D): Tensor2D;
  /** z = alpha theta^T (B x M); gradients for alpha and theta. */
  abilityLogits(alpha: Tensor2D, theta: Tensor2D): Tensor2D;
}

/** Builds the custom-gradient ops (explicit transposes; no transpose-flagged matMul). */
export function makeOps(tf: Tf): GraphOps {
  const denseFull = tf.customGrad(((x: Tensor2D, W: Tensor2D, b: Tensor1D, save: (t: Tensor[]) => void) => {
    save([x, W]);
    return {
      value: tf.add(tf.matMul(x, W), b),
      gradFunc: (dy: Tensor2D, saved: Tensor[]) => {
        const [xs, Ws] = saved as [Tensor2D, Tensor2D];
        return [tf.matMul(dy, tf.transpose(Ws)), tf.matMul(tf.transpose(xs), dy), tf.sum(dy, 0)];
      },
    };
  }) as any) as unknown as (x: Tensor2D, W: Tensor2D, b: Tensor1D) => Tensor2D;

  const abilityLogits = tf.customGrad(((alpha: Tensor2D, theta: Tensor2D, save: (t: Tensor[]) => void) => {
    save([alpha, theta]);
    return {
      value: tf.matMul(alpha, tf.transpose(theta)),
      gradFunc: (dy: Tensor2D, saved: Tensor[]) => {
        const [a, th] = saved as [Tensor2D, Tensor2D];
        return [tf.matMul(dy, th), tf.matMul(tf.transpose(dy), a)];
      },
    };
  }) as any) as unknown as (alpha: Tensor2D, theta: Tensor2D) => Tensor2D;

  const denseData = (x: Tensor2D, W: Tensor2D, b: Tensor1D): Tensor2D => {
    const op = tf.customGrad(((Wv: Tensor2D, bv: Tensor1D, save: (t: Tensor[]) => void) => {
      save([Wv]);
      return {
        value: tf.add(tf.matMul(x, Wv), bv),
        gradFunc: (dy: Tensor2D) => [tf.matMul(tf.transpose(x), dy), tf.sum(dy, 0)],
      };
    }) as any) as unknown as (W: Tensor2D, b: Tensor1D) => Tensor2D;
    return op(W, b);
  };

  return { dense: denseFull, denseData, abilityLogits };
}

/** Per-forward training randomness: one dropout mask per expert (K routed, then shared), B x H, already scaled by 1/(1-p). */
export interface TrainNoise {
  dropout?: Tensor2D[];
}

function expertOut(
  tf: Tf,
  ops: GraphOps,
  e: ExpertVars,
  x: Tensor2D,
  mask: Tensor2D | undefined,
  xIsData: boolean,
): Tensor2D {
  const pre = xIsData
    ? ops.denseData(x, e.l1.W as Tensor2D, e.l1.b as Tensor1D)
    : ops.dense(x, e.l1.W as Tensor2D, e.l1.b as Tensor1D);
  let h = tf.relu(pre);
  if (mask) h = tf.mul(h, mask);
  return ops.dense(h, e.l2.W as Tensor2D, e.l2.b as Tensor1D);
}

/** Output of the graph for a batch of items. */
export interface GraphOutput {
  /** alpha . theta_m - beta, B x M. */
  logits: Tensor2D;
  /** Gate probabilities, B x K. */
  gate: Tensor2D;
  alpha: Tensor2D;
  /** B x 1. */
  beta: Tensor2D;
}

/**
 * Forward pass for a batch of embeddings `x` (B x inDim). `xIsData` skips the input gradient
 * (training); the gradient check sets it to false.
 */
export function forwardGraph(
  tf: Tf,
  ops: GraphOps,
  v: GraphVars,
  x: Tensor2D,
  noise: TrainNoise = {},
  xIsData = true,
): GraphOutput {
  const K = v.experts.length;
  const gateLogits = xIsData
    ? ops.denseData(x, v.gate.W as Tensor2D, v.gate.b as Tensor1D)
    : ops.dense(x, v.gate.W as Tensor2D, v.gate.b as Tensor1D);
  const gate = tf.softmax(gateLogits) as Tensor2D;
  const routed = v.experts.map((e, k) => expertOut(tf, ops, e, x, noise.dropout?.[k], xIsData));
  const shared = expertOut(tf, ops, v.shared, x, noise.dropout?.[K], xIsData);
  const stacked = tf.stack(routed, 1); // B x K x O
  const mixed = tf.add(shared, tf.sum(tf.mul(stacked, tf.expandDims(gate, 2)), 1)) as Tensor2D;
  const alpha = ops.dense(mixed, v.alpha.W as Tensor2D, v.alpha.b as Tensor1D);
  const beta = ops.dense(mixed, v.beta.W as Tensor2D, v.beta.b as Tensor1D);
  const logits = tf.sub(ops.abilityLogits(alpha, v.theta as Tensor2D), beta) as Tensor2D;
  return { logits, gate, alpha, beta };
}

/**
 * Masked binary cross-entropy with soft targets: mean over observed cells of
 * softplus(z) - y z. Unobserved cells (mask 0) contribute nothing, whatever their y.
 */
export function maskedBce(tf: Tf, logits: Tensor2D, y: Tensor2D, mask: Tensor2D): Tensor {
  const cell = tf.sub(tf.softplus(logits), tf.mul(y, logits));
  return tf.div(tf.sum(tf.mul(cell, mask)), tf.maximum(tf.sum(mask), 1));
}

/**
 * Mean over items of the listwise loss -sum_m w_m log softmax(logits over the item's observed models)_m, with
 * w_m = y_m / sum_m y_m over observed models; only items with some but not all of their observed labels correct
 * count (on the others the order carries no signal). Unobserved cells get no probability mass and no weight.
 */
export function maskedListwise(tf: Tf, logits: Tensor2D, y: Tensor2D, mask: Tensor2D): Tensor {
  const shifted = tf.add(logits, tf.mul(tf.sub(mask, 1), 1e4));
  const logp = tf.logSoftmax(shifted, 1);
  const target = tf.mul(y, mask);
  const correct = tf.sum(target, 1);
  const observed = tf.sum(mask, 1);
  const informative = tf.cast(tf.logicalAnd(tf.greater(correct, 0), tf.less(correct, observed)), "float32");
  const perItem = tf.neg(tf.div(tf.sum(tf.mul(target, logp), 1), tf.maximum(correct, 1e-6)));
  return tf.div(tf.sum(tf.mul(perItem, informative)), tf.maximum(tf.sum(informative), 1));
}
