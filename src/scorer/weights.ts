import { logit } from "../util/maths.js";
import { type Rng } from "../util/random.js";

/** A dense layer y = x W + b; `W` is `inDim x outDim`, row-major, little-endian float32 when saved. */
export interface DenseWeights {
  readonly inDim: number;
  readonly outDim: number;
  readonly W: Float32Array;
  readonly b: Float32Array;
}

/** One expert MLP: e -> H -> ReLU -> (dropout) -> O. */
export interface ExpertWeights {
  readonly l1: DenseWeights;
  readonly l2: DenseWeights;
}

/** Every learned parameter of an IRT-MoE scorer, as plain typed arrays. */
export interface IrtMoeWeights {
  /** Input (embedding) dimension. */
  readonly inDim: number;
  /** Routed experts (K). */
  readonly experts: readonly ExpertWeights[];
  /** The always-on shared expert. */
  readonly shared: ExpertWeights;
  /** Gate: inDim -> K logits (softmax). */
  readonly gate: DenseWeights;
  /** alpha head: O -> d. */
  readonly alpha: DenseWeights;
  /** beta head: O -> 1. */
  readonly beta: DenseWeights;
  /** Model ids, one per row of `theta`. */
  readonly models: readonly string[];
  /** Abilities theta, `models.length x d`, row-major. */
  readonly theta: Float32Array;
}

/** Shape summary of a weights object. */
export function shapeOf(w: IrtMoeWeights): {
  inDim: number;
  experts: number;
  hidden: number;
  out: number;
  abilityDim: number;
  nModels: number;
} {
  return {
    inDim: w.inDim,
    experts: w.experts.length,
    hidden: w.shared.l1.outDim,
    out: w.shared.l2.outDim,
    abilityDim: w.alpha.outDim,
    nModels: w.models.length,
  };
}

function dense(rng: Rng, inDim: number, outDim: number, gain = 1): DenseWeights {
  // Glorot-uniform scaled by gain.
  const limit = gain * Math.sqrt(6 / (inDim + outDim));
  const W = new Float32Array(inDim * outDim);
  for (let i = 0; i < W.length; i++) W[i] = (rng.next() * 2 - 1) * limit;
  return { inDim, outDim, W, b: new Float32Array(outDim) };
}

function expert(rng: Rng, inDim: number, hidden: number, out: number): ExpertWeights {
  return { l1: dense(rng, inDim, hidden, Math.SQRT2), l2: dense(rng, hidden, out) };
}

/** Seeded initial weights. `baseRate` (mean correctness of the training labels) initialises beta's bias. */
export function initWeights(
  rng: Rng,
  shape: { inDim: number; experts: number; hidden: number; out: number; abilityDim: number },
  models: readonly string[],
  baseRate = 0.5,
): IrtMoeWeights {
  const { inDim, experts, hidden, out, abilityDim } = shape;
  const routed = Array.from({ length: experts }, () => expert(rng, inDim, hidden, out));
  const shared = expert(rng, inDim, hidden, out);
  const gate = dense(rng, inDim, experts, 0.1);
  const alpha = dense(rng, out, abilityDim);
  const beta = dense(rng, out, 1);
  beta.b[0] = -logit(baseRate, 0.01);
  const theta = new Float32Array(models.length * abilityDim);
  const s = 1 / Math.sqrt(abilityDim);
  for (let i = 0; i < theta.length; i++) theta[i] = rng.normal() * s;
  return { inDim, experts: routed, shared, gate, alpha, beta, models: [...models], theta };
}

/** A deep copy (typed arrays copied). */
export function cloneWeights(w: IrtMoeWeights): IrtMoeWeights {
  return mapTensors(w, (a) => a.slice());
}

/** The same weights with every tensor (each layer's W and b, and theta) replaced by `f` of it. */
export function mapTensors(w: IrtMoeWeights, f: (tensor: Float32Array) => Float32Array): IrtMoeWeights {
  const d = (x: DenseWeights): DenseWeights => ({ inDim: x.inDim, outDim: x.outDim, W: f(x.W), b: f(x.b) });
  const e = (x: ExpertWeights): ExpertWeights => ({ l1: d(x.l1), l2: d(x.l2) });
  return {
    inDim: w.inDim,
    experts: w.experts.map(e),
    shared: e(w.shared),
    gate: d(w.gate),
    alpha: d(w.alpha),
    beta: d(w.beta),
    models: [...w.models],
    theta: f(w.theta),
  };
}

/** Every dense layer: the gate, the alpha and beta heads, and each expert's (shared first) two layers. */
export function denseLayersOf(w: IrtMoeWeights): DenseWeights[] {
  return [w.gate, w.alpha, w.beta, ...[w.shared, ...w.experts].flatMap((e) => [e.l1, e.l2])];
}

/** Floats in every tensor (the dense layers and theta). */
export function tensorFloats(w: IrtMoeWeights): number {
  return denseLayersOf(w).reduce((n, l) => n + l.W.length + l.b.length, w.theta.length);
}
