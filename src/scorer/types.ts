import type { EncoderInfo } from "../encoders/types.js";
import type { ModelPrice } from "../data/types.js";
import type { KnownPrior } from "../learning/known-prior.js";

/** IRT item parameters of one query: p(m) = sigmoid(alpha . theta_m - beta). */
export interface ItemParams {
  readonly alpha: Float32Array;
  readonly beta: number;
}

/** One model the scorer knows. */
export interface CatalogEntry {
  /** Canonical id. */
  readonly id: string;
  /** Other names the same model goes by (dataset column names, provider ids). */
  readonly aliases: readonly string[];
  readonly provider?: string;
  /** Datasets that contributed labels. */
  readonly sources: readonly string[];
  /** Ability vector theta (length d). */
  readonly ability: Float32Array;
  /** Number of training labels behind it. */
  readonly nLabels: number;
  /** Observed accuracy over its training labels. */
  readonly accuracy: number;
  readonly price?: ModelPrice;
}

export interface ModelScore {
  readonly model: string;
  readonly p: number;
}

/** p(model answers query correctly), for every candidate of one query. */
export interface Scorer {
  readonly encoder: EncoderInfo;
  /** The model catalog. */
  readonly models: readonly CatalogEntry[];
  /** Ability dimension d. */
  readonly abilityDim: number;
  /**
   * Prior of a catalogued model's ability on a new workload, fitted on the training labels:
   * N(theta, scale x the population covariance shrunk by `shrinkage`). Absent when it was not fitted.
   */
  readonly knownPrior?: KnownPrior;
  /** Alpha and beta of one query (computed once per query). */
  itemParams(textOrEmbedding: string | Float32Array): Promise<ItemParams>;
  /** Scores the given models (catalog ids or aliases; default: every catalog model). */
  predict(textOrEmbedding: string | Float32Array, modelIds?: readonly string[]): Promise<ModelScore[]>;
  /** theta of a model (id or alias); throws UNKNOWN_MODEL when absent. */
  ability(modelId: string): Float32Array;
}
