/** The shapes the statistics work on: sparse correctness labels and blocks of predictions. */

/**
 * Sparse correctness labels in CSR layout (as `CorrectnessDataset.labels`): the observations
 * of item `i` are entries `offsets[i] .. offsets[i+1]-1` of `model` (model index) and `y`
 * (correctness in [0, 1], graded values allowed). Unobserved cells have no entry.
 */
export interface LabelMatrix {
  readonly offsets: Int32Array;
  readonly model: Int32Array;
  readonly y: Float32Array;
}

/**
 * Predicted p(correct) for a block of items: `p[r * nModels + m]` is the prediction for item
 * `rows[r]` and model `m`.
 */
export type PredictionBlock = Float32Array;
