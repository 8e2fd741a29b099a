/** The shapes of training: the data a scorer trains on, its options and its per-epoch report. */

/** Query embeddings plus CSR correctness labels (same layout as CorrectnessDataset.labels). */
export interface EmbeddedLabels {
  /** nItems x dim, row-major. */
  X: Float32Array;
  dim: number;
  nItems: number;
  nModels: number;
  /** Length nItems + 1. Observations of item i: entries offsets[i] .. offsets[i+1]-1. */
  offsets: Int32Array;
  /** Model index (0 .. nModels-1) of each observation. */
  model: Int32Array;
  /** Correctness in [0, 1] of each observation (graded values train as soft targets). */
  y: Float32Array;
  /** Optional model ids (default `model-0` ...); stored in the weights. */
  models?: readonly string[];
}

/** One epoch of training. */
export interface EpochReport {
  epoch: number;
  /** Mean training loss over the epoch's steps (masked BCE, plus rankWeight x the listwise ranking term when rankWeight > 0; with dropout and noise), each step weighted by its items. */
  trainLoss: number;
  valLoss: number;
  valAuc: number;
  valRouting: number;
  learningRate: number;
  /** Whether this epoch is the best so far on the early-stopping criterion. */
  improved: boolean;
  seconds: number;
}

/** Options of {@link trainIrtMoe}. */
export interface TrainOptions {
  /** Seed of every random choice (default 1). */
  seed?: number;
  onEpoch?: (report: EpochReport) => void;
  /** Called after each step with the items done in this epoch. */
  onBatch?: (info: { epoch: number; itemsDone: number; itemsTotal: number; loss: number }) => void;
}
