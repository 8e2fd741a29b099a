import { z } from "zod";
import { modelAccuracies } from "../stats/routing-scores.js";
import type { EmbeddedLabelData, FitSplit, FittedMethod, RoutingMethod } from "../eval/types.js";
import { parseWith } from "../util/validate.js";
import { dot } from "./logit-model.js";

/** Options of {@link knnBaseline}. */
export interface KnnOptions {
  /** Neighbour counts tried on validation. */
  readonly kGrid?: readonly number[];
  /** Prior strengths tried on validation: pseudo-observations at the model's train accuracy. */
  readonly priorGrid?: readonly number[];
}

const knnSchema = z
  .object({
    kGrid: z.array(z.number().int().positive()).min(1).optional(),
    priorGrid: z.array(z.number().min(0)).min(1).optional(),
  })
  .strict();

/** Row-normalised copy of the embeddings of `rows` (cosine similarity becomes a dot product). */
function normalisedRows(X: Float32Array, dim: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * dim);
  rows.forEach((item, r) => {
    let n = 0;
    for (let k = 0; k < dim; k++) n += X[item * dim + k]! ** 2;
    const s = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let k = 0; k < dim; k++) out[r * dim + k] = X[item * dim + k]! * s;
  });
  return out;
}

/** Indices (into the train rows) of the `k` most cosine-similar train items, most similar first. */
function topK(query: Float32Array, train: Float32Array, nTrain: number, dim: number, k: number): Int32Array {
  const kk = Math.min(k, nTrain);
  const sims = new Float64Array(kk).fill(-Infinity);
  const idx = new Int32Array(kk).fill(-1);
  for (let j = 0; j < nTrain; j++) {
    const s = dot(train, j * dim, query, 0, dim);
    if (s <= sims[kk - 1]!) continue;
    let pos = kk - 1;
    while (pos > 0 && sims[pos - 1]! < s) {
      sims[pos] = sims[pos - 1]!;
      idx[pos] = idx[pos - 1]!;
      pos--;
    }
    sims[pos] = s;
    idx[pos] = j;
  }
  return idx;
}

/**
 * kNN over query embeddings: p_m(q) = (sum of m's labels on q's k nearest train items + s * a_m)
 * / (number of them observed for m + s), with a_m the model's train accuracy and s a small prior
 * strength. k and s are tuned on validation log-loss. Deterministic (no seed).
 *
 * @example
 * ```ts
 * const fitted = await knnBaseline({ kGrid: [10, 50] }).fit(data, { train, val }, { seed: 0 });
 * const p = fitted.predict(data.X, testRows);
 * ```
 */
export function knnBaseline(options: KnnOptions = {}): RoutingMethod {
  parseWith(knnSchema, options, "knnBaseline");
  const kGrid = [...(options.kGrid ?? [5, 10, 20, 50, 100, 200])].sort((a, b) => a - b);
  const priorGrid = options.priorGrid ?? [0.5, 2, 8];
  const kMax = kGrid[kGrid.length - 1]!;
  return {
    name: "knn",
    seeded: false,
    async fit(data: EmbeddedLabelData, split: FitSplit): Promise<FittedMethod> {
      const { dim, nModels } = data;
      const trainRows = [...split.train];
      const train = normalisedRows(data.X, dim, trainRows);
      const prior = modelAccuracies(data, trainRows, nModels).map((a) => (Number.isFinite(a) ? a : 0.5));
      const neighbours = (X: Float32Array, rows: readonly number[], k: number): Int32Array[] => {
        const q = normalisedRows(X, dim, rows);
        return rows.map((_, r) => topK(q.subarray(r * dim, r * dim + dim), train, trainRows.length, dim, k));
      };
      const predictFrom = (nbrs: Int32Array[], k: number, s: number): Float32Array => {
        const out = new Float32Array(nbrs.length * nModels);
        const sum = new Float64Array(nModels);
        const cnt = new Float64Array(nModels);
        nbrs.forEach((list, r) => {
          sum.fill(0);
          cnt.fill(0);
          for (let j = 0; j < Math.min(k, list.length); j++) {
            const item = trainRows[list[j]!]!;
            for (let e = data.offsets[item]!; e < data.offsets[item + 1]!; e++) {
              sum[data.model[e]!]! += data.y[e]!;
              cnt[data.model[e]!]!++;
            }
          }
          // With s = 0 and no neighbour observed for m, the formula is 0/0: use its s -> 0 limit, a_m.
          for (let m = 0; m < nModels; m++) {
            out[r * nModels + m] = cnt[m]! + s > 0 ? (sum[m]! + s * prior[m]!) / (cnt[m]! + s) : prior[m]!;
          }
        });
        return out;
      };
      // Tune k and the prior strength on validation log-loss.
      const valNbrs = neighbours(data.X, split.val, kMax);
      let best = { k: kGrid[0]!, s: priorGrid[0]!, loss: Infinity };
      const search: string[] = [];
      for (const k of kGrid) {
        for (const s of priorGrid) {
          const p = predictFrom(valNbrs, k, s);
          const loss = logLoss(data, split.val, p, nModels);
          search.push(`k=${k},s=${s}: ${loss.toFixed(4)}`);
          if (loss < best.loss) best = { k, s, loss };
        }
      }
      const { k, s } = best;
      return {
        description: `cosine kNN, k=${k}, prior strength ${s} (tuned on val log-loss over ${search.length} settings; best ${best.loss.toFixed(4)})`,
        predict: (X, rows) => predictFrom(neighbours(X, rows, k), k, s),
      };
    },
  };
}

/** Mean log-loss of a prediction block over the observed cells (p clipped to [1e-6, 1 - 1e-6]). */
export function logLoss(data: EmbeddedLabelData, rows: readonly number[], p: Float32Array, nModels: number): number {
  let loss = 0;
  let n = 0;
  rows.forEach((item, r) => {
    for (let e = data.offsets[item]!; e < data.offsets[item + 1]!; e++) {
      const q = Math.min(1 - 1e-6, Math.max(1e-6, p[r * nModels + data.model[e]!]!));
      const t = data.y[e]!;
      loss -= t * Math.log(q) + (1 - t) * Math.log(1 - q);
      n++;
    }
  });
  return n > 0 ? loss / n : NaN;
}
