import { z } from "zod";
import { parseWith } from "../util/validate.js";

/** Hyperparameters of the IRT mixture-of-experts scorer and its training. */
export interface IrtMoeConfig {
  /** K: number of routed experts (one shared expert is always added). */
  experts: number;
  /** H: hidden width of each expert MLP. */
  hidden: number;
  /** O: output width of each expert (input of the alpha and beta heads). */
  out: number;
  /** d: ability dimension (length of alpha_q and theta_m). */
  abilityDim: number;
  /** Dropout rate after each expert's hidden ReLU (training only). */
  dropout: number;
  /** Standard deviation of the Gaussian noise added to the (unit-scale) query embedding during training. */
  inputNoise: number;
  /** Peak Adam learning rate. */
  learningRate: number;
  /** Decoupled (AdamW) weight decay on weight matrices and abilities; biases are not decayed. */
  weightDecay: number;
  /** Items per optimisation step (each item is scored against every model observed on it). */
  batchItems: number;
  /** Upper bound on training epochs. */
  maxEpochs: number;
  /** Early stopping: stop after this many epochs without a validation improvement (best epoch restored). */
  patience: number;
  /** Halve the learning rate after this many epochs without improvement (reduce-on-plateau schedule). */
  lrPatience: number;
  /** Linear warm-up of the learning rate over this many epochs. */
  warmupEpochs: number;
  /** Validation criterion for early stopping: correctness log-loss, correctness AUC, or routing accuracy. */
  earlyStopOn: "loss" | "auc" | "routing";
  /** Fit temperature scaling on validation (applied only when it lowers validation ECE). */
  calibrate: boolean;
  /**
   * Decay of an exponential moving average of the weights, updated after every step and used for
   * validation, early stopping and the returned weights (Polyak averaging); 0 turns it off.
   */
  emaDecay: number;
  /**
   * Weight of an auxiliary per-item listwise loss added to the BCE: the cross-entropy between a softmax over the
   * item's observed models' logits and its correct models (target y_m / sum of y), on items where the models
   * disagree. It trains the order of the models on an item, which is what routing uses; 0 turns it off (the
   * paper's loss).
   */
  rankWeight: number;
}

/**
 * Defaults chosen on the validation splits (mmlu-pro-29models and routerdc-7models); the search is
 * recorded in docs/scorer.md.
 */
export const DEFAULT_IRT_MOE_CONFIG: IrtMoeConfig = Object.freeze({
  experts: 4,
  hidden: 128,
  out: 64,
  abilityDim: 32,
  dropout: 0.3,
  inputNoise: 0.02,
  learningRate: 1e-3,
  weightDecay: 1e-4,
  batchItems: 128,
  maxEpochs: 30,
  patience: 4,
  lrPatience: 2,
  warmupEpochs: 1,
  earlyStopOn: "loss",
  calibrate: true,
  emaDecay: 0,
  rankWeight: 0,
}) as IrtMoeConfig;

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** Zod schema of a (partial) {@link IrtMoeConfig}; unknown keys are rejected. */
export const irtMoeConfigSchema = z
  .object({
    experts: int(1, 256),
    hidden: int(1, 8192),
    out: int(1, 8192),
    abilityDim: int(1, 4096),
    dropout: z.number().min(0).max(0.95),
    inputNoise: z.number().min(0).max(10),
    learningRate: z.number().positive().max(1),
    weightDecay: z.number().min(0).max(1),
    batchItems: int(1, 1 << 20),
    maxEpochs: int(1, 100000),
    patience: int(1, 100000),
    lrPatience: int(1, 100000),
    warmupEpochs: z.number().min(0).max(1000),
    earlyStopOn: z.enum(["loss", "auc", "routing"]),
    calibrate: z.boolean(),
    emaDecay: z.number().min(0).max(0.99999),
    rankWeight: z.number().min(0).max(100),
  })
  .strict();

/**
 * Validates a partial config and fills the rest from {@link DEFAULT_IRT_MOE_CONFIG}.
 * Throws a ValidationError naming the bad field (e.g. `config.hidden`).
 *
 * @example
 * const cfg = resolveIrtMoeConfig({ experts: 4, hidden: 128 });
 */
export function resolveIrtMoeConfig(partial: Partial<IrtMoeConfig> = {}): IrtMoeConfig {
  const parsed = parseWith(irtMoeConfigSchema.partial(), partial, "config");
  return { ...DEFAULT_IRT_MOE_CONFIG, ...parsed };
}
