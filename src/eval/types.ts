/**
 * Shapes shared by the evaluation harness and the baselines. Everything is plain typed
 * arrays so the harness stays pure (no I/O) and fast.
 */
import type { LabelMatrix, PredictionBlock } from "../stats/types.js";

export type { LabelMatrix, PredictionBlock } from "../stats/types.js";

/**
 * Query embeddings plus labels: what every learned method trains on. Structurally the same
 * as the scorer's `EmbeddedLabels`, so one value feeds both.
 */
export interface EmbeddedLabelData extends LabelMatrix {
  /** Row-major `nItems x dim` query embeddings. */
  readonly X: Float32Array;
  readonly dim: number;
  readonly nItems: number;
  readonly nModels: number;
}

/** Which items a method may learn from: train to fit, val to tune and early-stop. Never test. */
export interface FitSplit {
  readonly train: readonly number[];
  readonly val: readonly number[];
}

/** A fitted method: predicts p(correct) for every model on a block of items. */
export interface FittedMethod {
  /** `rows.length x nModels` predictions for the items `rows` of `X` (row-major `nItems x dim`). */
  predict(X: Float32Array, rows: readonly number[]): PredictionBlock | Promise<PredictionBlock>;
  /** Chosen hyperparameters and training facts, for the report (e.g. "k=20, prior=2"). */
  readonly description: string;
}

/** Progress of a method's training (one event per epoch or tuning step). */
export interface FitProgress {
  readonly method: string;
  readonly epoch: number;
  readonly maxEpochs: number;
  readonly trainLoss?: number;
  readonly valLoss?: number;
  /** Names a sub-run (e.g. one grid value of a hyperparameter search); a new note starts a new progress bar. */
  readonly note?: string;
  /** Extra per-epoch status text (e.g. "val AUC 0.74"). */
  readonly status?: string;
}

/** Options of one fit. */
export interface FitOptions {
  /** Seed of everything random in the fit (initialisation, batch order, noise). */
  readonly seed: number;
  readonly onProgress?: (event: FitProgress) => void;
}

/**
 * Anything the harness can evaluate: the IRT-MoE scorer, a baseline, a saved artifact.
 *
 * @example
 * ```ts
 * const method: RoutingMethod = logisticRegressionBaseline();
 * const fitted = await method.fit(data, { train, val }, { seed: 1 });
 * const p = fitted.predict(data.X, testRows);
 * ```
 */
export interface RoutingMethod {
  readonly name: string;
  /** True when results depend on the seed (run once per seed); false for deterministic methods (run once). */
  readonly seeded: boolean;
  fit(data: EmbeddedLabelData, split: FitSplit, options: FitOptions): Promise<FittedMethod>;
}
