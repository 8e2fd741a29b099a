import type { Rng } from "../util/random.js";
import { logit as clippedLogit } from "../util/maths.js";
import { axpy, dot, type LogitModel } from "./logit-model.js";

/** The logit of a model's prior accuracy, clipped to [1e-4, 1 - 1e-4]: where the baselines' fits start. */
const logit = (p: number) => clippedLogit(p, 1e-4);

/**
 * Per-model logistic regression on the query embedding: logit_m = w_m . x + b_m
 * (one independent linear classifier per model; weights stored one row per model).
 */
export function logisticRegressionModel(
  dim: number,
  nModels: number,
  priorAccuracy: ArrayLike<number>,
  rng: Rng,
): LogitModel {
  const W = new Float32Array(nModels * dim).map(() => rng.normal() * 0.01);
  const b = Float32Array.from({ length: nModels }, (_, m) => logit(priorAccuracy[m]!));
  return {
    params: [W, b],
    decay: [true, false],
    nModels,
    forward(x, out) {
      for (let m = 0; m < nModels; m++) out[m] = dot(W, m * dim, x, 0, dim) + b[m]!;
    },
    backward(x, g, [gW, gb]) {
      for (let m = 0; m < nModels; m++) {
        const gm = g[m]!;
        if (gm === 0) continue;
        axpy(gW!, m * dim, gm, x, 0, dim);
        gb![m]! += gm;
      }
    },
  };
}

/**
 * Linear multidimensional IRT: alpha = A x + a0 (d-vector), beta = v . x + c, one ability
 * vector theta_m per model; logit_m = alpha . theta_m - beta. Alpha and beta are linear in the
 * embedding (no experts, no hidden layer).
 */
export function linearMirtModel(
  dim: number,
  nModels: number,
  d: number,
  priorAccuracy: ArrayLike<number>,
  rng: Rng,
): LogitModel {
  const A = new Float32Array(d * dim).map(() => (rng.normal() * 0.1) / Math.sqrt(dim));
  const a0 = new Float32Array(d).fill(1 / Math.sqrt(d));
  const v = new Float32Array(dim);
  const c = new Float32Array(1);
  // a0 . theta_m starts at logit(train accuracy of m): the fit starts at the per-model prior.
  const theta = new Float32Array(nModels * d);
  for (let m = 0; m < nModels; m++) {
    for (let k = 0; k < d; k++) theta[m * d + k] = logit(priorAccuracy[m]!) / Math.sqrt(d) + rng.normal() * 0.05;
  }
  const alpha = new Float32Array(d);
  const gAlpha = new Float32Array(d);
  return {
    params: [A, a0, v, c, theta],
    decay: [true, false, true, false, true],
    nModels,
    forward(x, out) {
      for (let k = 0; k < d; k++) alpha[k] = dot(A, k * dim, x, 0, dim) + a0[k]!;
      const beta = dot(v, 0, x, 0, dim) + c[0]!;
      for (let m = 0; m < nModels; m++) out[m] = dot(alpha, 0, theta, m * d, d) - beta;
    },
    backward(x, g, [gA, ga0, gv, gc, gTheta]) {
      gAlpha.fill(0);
      let gBeta = 0;
      for (let m = 0; m < nModels; m++) {
        const gm = g[m]!;
        if (gm === 0) continue;
        axpy(gAlpha, 0, gm, theta, m * d, d);
        axpy(gTheta!, m * d, gm, alpha, 0, d);
        gBeta -= gm;
      }
      for (let k = 0; k < d; k++) {
        const gk = gAlpha[k]!;
        if (gk === 0) continue;
        axpy(gA!, k * dim, gk, x, 0, dim);
        ga0![k]! += gk;
      }
      axpy(gv!, 0, gBeta, x, 0, dim);
      gc![0]! += gBeta;
    },
  };
}

/**
 * EmbedLLM-style matrix factorisation: the query embedding is projected to h dims
 * (q = P x + p0), multiplied elementwise by the model's embedding E_m, and a linear classifier
 * turns the product into a logit: logit_m = w . (E_m * q) + c.
 */
export function embedLlmMfModel(
  dim: number,
  nModels: number,
  h: number,
  priorAccuracy: ArrayLike<number>,
  rng: Rng,
): LogitModel {
  const P = new Float32Array(h * dim).map(() => (rng.normal() * 0.1) / Math.sqrt(dim));
  const p0 = new Float32Array(h).fill(1);
  const E = new Float32Array(nModels * h);
  // E_m starts so that w . (E_m * p0) = logit(train accuracy of m), plus noise.
  for (let m = 0; m < nModels; m++) {
    for (let k = 0; k < h; k++) E[m * h + k] = logit(priorAccuracy[m]!) / h + rng.normal() * 0.05;
  }
  const w = new Float32Array(h).fill(1);
  const c = new Float32Array(1);
  const q = new Float32Array(h);
  const gq = new Float32Array(h);
  return {
    params: [P, p0, E, w, c],
    decay: [true, false, true, false, false],
    nModels,
    forward(x, out) {
      for (let k = 0; k < h; k++) q[k] = dot(P, k * dim, x, 0, dim) + p0[k]!;
      for (let m = 0; m < nModels; m++) {
        let s = c[0]!;
        for (let k = 0; k < h; k++) s += w[k]! * E[m * h + k]! * q[k]!;
        out[m] = s;
      }
    },
    backward(x, g, [gP, gp0, gE, gw, gc]) {
      gq.fill(0);
      for (let m = 0; m < nModels; m++) {
        const gm = g[m]!;
        if (gm === 0) continue;
        gc![0]! += gm;
        for (let k = 0; k < h; k++) {
          const e = E[m * h + k]!;
          gq[k]! += gm * w[k]! * e;
          gE![m * h + k]! += gm * w[k]! * q[k]!;
          gw![k]! += gm * e * q[k]!;
        }
      }
      for (let k = 0; k < h; k++) {
        const gk = gq[k]!;
        if (gk === 0) continue;
        axpy(gP!, k * dim, gk, x, 0, dim);
        gp0![k]! += gk;
      }
    },
  };
}
