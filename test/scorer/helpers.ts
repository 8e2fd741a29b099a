import { saveScorer } from "../../adapters/artifact/files.js";
import { buildCatalog } from "../../src/scorer/catalog.js";
import { resolveIrtMoeConfig } from "../../src/scorer/config.js";
import { trainingRng } from "../../src/util/random.js";
import type { EmbeddedLabels } from "../../src/scorer/train.js";
import { initWeights } from "../../src/scorer/weights.js";

/**
 * Data simulated from a known 1-d IRT model: alpha_q = 1 + 0.5 tanh(a . x), beta_q = b . x,
 * p = sigmoid(alpha_q * theta_m - beta_q); a fraction `missing` of cells is unobserved.
 */
export function simulateIrt(opts: { nItems: number; dim: number; nModels: number; seed: number; missing?: number }): {
  data: EmbeddedLabels;
  theta: number[];
} {
  const { nItems, dim, nModels, seed, missing = 0.2 } = opts;
  const rng = trainingRng(seed);
  const a = Array.from({ length: dim }, () => rng.normal());
  const b = Array.from({ length: dim }, () => rng.normal());
  const theta = Array.from({ length: nModels }, (_, m) => -1.5 + (3 * m) / (nModels - 1));
  const X = new Float32Array(nItems * dim);
  for (let i = 0; i < X.length; i++) X[i] = rng.normal() / Math.sqrt(dim);
  const offsets = new Int32Array(nItems + 1);
  const model: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < nItems; i++) {
    let sa = 0;
    let sb = 0;
    for (let c = 0; c < dim; c++) {
      sa += a[c]! * X[i * dim + c]!;
      sb += b[c]! * X[i * dim + c]!;
    }
    const alpha = 1 + 0.5 * Math.tanh(sa);
    for (let m = 0; m < nModels; m++) {
      if (rng.next() < missing) continue;
      const z = 2 * (alpha * theta[m]! - sb);
      model.push(m);
      y.push(rng.next() < 1 / (1 + Math.exp(-z)) ? 1 : 0);
    }
    offsets[i + 1] = model.length;
  }
  return {
    data: {
      X,
      dim,
      nItems,
      nModels,
      offsets,
      model: Int32Array.from(model),
      y: Float32Array.from(y),
      models: theta.map((_, m) => `m${m}`),
    },
    theta,
  };
}

/** Spearman rank correlation (no ties expected). */
export function spearman(a: number[], b: number[]): number {
  const rank = (v: number[]) => {
    const idx = v.map((_, i) => i).sort((i, j) => v[i]! - v[j]!);
    const r = new Array<number>(v.length);
    idx.forEach((i, k) => (r[i] = k));
    return r;
  };
  const ra = rank(a);
  const rb = rank(b);
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (ra[i]! - rb[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

export const TINY = {
  experts: 2,
  hidden: 8,
  out: 6,
  abilityDim: 3,
  batchItems: 16,
  maxEpochs: 3,
  dropout: 0.1,
  inputNoise: 0.01,
};

/** Architecture of the toy scorers the API, artifact and probe-bank tests build (8-d input). */
export const TOY_ARCH = { inDim: 8, experts: 2, hidden: 6, out: 5, abilityDim: 3 };

/**
 * Weights (seeded) and a catalog for a toy scorer with one ability row per id; `entry` gives each row's names
 * and label count (default: its own id, 10 labels).
 */
export function toyScorerParts(
  seed: number,
  ids: readonly string[],
  entry: (id: string, m: number) => { names: string[]; nLabels: number } = (id) => ({ names: [id], nLabels: 10 }),
) {
  const weights = initWeights(trainingRng(seed), TOY_ARCH, ids, 0.6);
  const catalog = buildCatalog(
    weights.theta,
    TOY_ARCH.abilityDim,
    weights.models.map((id, m) => ({ id, ...entry(id, m), sources: ["toy"], accuracy: 0.5 })),
  );
  return { weights, catalog };
}

/** Saves a toy scorer artifact (TOY_ARCH, seeded weights, one ability row per id) built with the encoder `encoderId` (8-d) in `dir`. */
export async function saveToyScorer(dir: string, encoderId: string, ids: readonly string[], seed = 3): Promise<string> {
  const { weights, catalog } = toyScorerParts(seed, ids);
  await saveScorer(dir, {
    weights,
    catalog,
    encoder: { id: encoderId, dim: TOY_ARCH.inDim },
    config: resolveIrtMoeConfig({
      experts: TOY_ARCH.experts,
      hidden: TOY_ARCH.hidden,
      out: TOY_ARCH.out,
      abilityDim: TOY_ARCH.abilityDim,
    }),
    temperature: 1,
    calibration: { applied: false, fitted: 1, eceBefore: 0, eceAfter: 0 },
    training: { datasets: [], splitRule: "protocol", seed: 1, bestEpoch: 1, epochs: 1, trainSeconds: 0 },
    metrics: {},
  });
  return dir;
}
