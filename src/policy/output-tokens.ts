import { ValidationError } from "../errors.js";

/** Inputs of {@link knnOutputTokens}. */
export interface KnnOutputTokensInput {
  /** Row-major `nItems x dim` query embeddings (any encoder; cosine similarity is used). */
  readonly vectors: Float32Array;
  readonly dim: number;
  /** Items with known output lengths (the TRAIN split). */
  readonly trainRows: readonly number[];
  /** Items to estimate. */
  readonly targetRows: readonly number[];
  readonly nModels: number;
  /** Known output tokens of train item `trainRows[r]` and model `m` (NaN = unknown, skipped). */
  readonly known: (trainRow: number, model: number) => number;
  /** Neighbours averaged (default 25). */
  readonly k?: number;
}

/**
 * Expected output tokens per (target item, model): the mean over the `k` most similar train items
 * (cosine similarity of their embeddings) of that model's known output length. Answers are as long
 * as the answers to similar prompts: a multiple-choice prompt gets a one-letter answer, a coding
 * prompt a function. Known before the call: it needs only the query's embedding and train records.
 * Falls back to the model's train mean where no neighbour has a known length.
 *
 * @returns `targetRows.length x nModels`, row-major.
 *
 * @example
 * ```ts
 * const out = knnOutputTokens({ vectors, dim, trainRows: split.train, targetRows: split.test, nModels,
 *   known: (i, m) => impliedTokens[i * nModels + m] });
 * ```
 */
export function knnOutputTokens(input: KnnOutputTokensInput): Float64Array {
  const { vectors, dim, trainRows, targetRows, nModels, known } = input;
  const k = Math.min(input.k ?? 25, trainRows.length);
  if (!Number.isInteger(dim) || dim <= 0 || vectors.length % dim !== 0) {
    throw new ValidationError(`vectors (${vectors.length} values) must be a whole number of rows of dim ${dim}.`, {
      path: "vectors",
    });
  }
  if (!(Number.isInteger(k) && k >= 1)) {
    throw new ValidationError(
      `knnOutputTokens needs a whole number k >= 1 and at least one train row, got k = ${input.k ?? 25} and ${trainRows.length} train rows.`,
      { path: "k" },
    );
  }
  const norms = new Float64Array(vectors.length / dim);
  const normOf = (i: number) => {
    if (norms[i] === 0) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += vectors[i * dim + d]! ** 2;
      norms[i] = Math.sqrt(s) || 1;
    }
    return norms[i]!;
  };
  const trainKnown = new Float64Array(trainRows.length * nModels);
  const mean = new Float64Array(nModels);
  const count = new Float64Array(nModels);
  trainRows.forEach((_, r) => {
    for (let m = 0; m < nModels; m++) {
      const v = known(r, m);
      trainKnown[r * nModels + m] = v;
      if (Number.isFinite(v)) {
        mean[m]! += v;
        count[m]!++;
      }
    }
  });
  for (let m = 0; m < nModels; m++) mean[m] = count[m]! > 0 ? mean[m]! / count[m]! : 0;

  const out = new Float64Array(targetRows.length * nModels);
  const sims = new Float64Array(trainRows.length);
  const top = new Int32Array(k);
  targetRows.forEach((item, t) => {
    const a = item * dim;
    const na = normOf(item);
    trainRows.forEach((j, r) => {
      const b = j * dim;
      let s = 0;
      for (let d = 0; d < dim; d++) s += vectors[a + d]! * vectors[b + d]!;
      sims[r] = s / (na * normOf(j));
    });
    // Top k by similarity (insertion into a sorted list of k); ties go to the earlier train row.
    let filled = 0;
    for (let r = 0; r < trainRows.length; r++) {
      const s = sims[r]!;
      if (filled === k && s <= sims[top[k - 1]!]!) continue;
      let q = filled < k ? filled++ : k - 1;
      while (q > 0 && sims[top[q - 1]!]! < s) {
        top[q] = top[q - 1]!;
        q--;
      }
      top[q] = r;
    }
    for (let m = 0; m < nModels; m++) {
      let sum = 0;
      let n = 0;
      for (let q = 0; q < k; q++) {
        const v = trainKnown[top[q]! * nModels + m]!;
        if (Number.isFinite(v)) {
          sum += v;
          n++;
        }
      }
      out[t * nModels + m] = n > 0 ? sum / n : mean[m]!;
    }
  });
  return out;
}

/**
 * A model's expected output tokens per call, learned from the calls it has answered: the mean of the
 * observed output lengths, shrunk toward a prior guess worth `priorWeight` calls,
 *
 *     estimate = (priorWeight x prior + sum of observed) / (priorWeight + observed calls).
 *
 * The router keeps one per model and feeds it each response's `usage_metadata.output_tokens`, so its
 * ex-ante cost estimate follows what the model really writes on this workload.
 *
 * @example
 * ```ts
 * const est = new OutputTokenTracker(256, 4);
 * est.observe(40); est.observe(60);
 * est.estimate; // (4 * 256 + 100) / 6 = 187.3
 * ```
 */
export class OutputTokenTracker {
  private sum = 0;
  private n = 0;

  constructor(
    /** The guess before any call (the configured `expectedOutputTokens`). */
    readonly prior: number,
    /** How many observed calls the prior is worth (0: the plain mean once a call is observed). */
    readonly priorWeight: number,
  ) {
    if (!(Number.isFinite(prior) && prior >= 0))
      throw new ValidationError(`prior must be a finite number >= 0, got ${prior}`, { path: "prior" });
    if (!(Number.isFinite(priorWeight) && priorWeight >= 0))
      throw new ValidationError(`priorWeight must be a finite number >= 0, got ${priorWeight}`, {
        path: "priorWeight",
      });
  }

  /** Records one call's output length; a non-finite or negative value is ignored and reported as `false`. */
  observe(outputTokens: number): boolean {
    if (!(Number.isFinite(outputTokens) && outputTokens >= 0)) return false;
    this.sum += outputTokens;
    this.n++;
    return true;
  }

  /** Calls observed so far. */
  get observed(): number {
    return this.n;
  }

  /** The current expected output tokens per call. */
  get estimate(): number {
    const w = this.priorWeight;
    return this.n + w > 0 ? (w * this.prior + this.sum) / (w + this.n) : this.prior;
  }
}
