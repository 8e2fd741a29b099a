import { z } from "zod";
import { createRng, type Rng } from "../util/random.js";
import { modelAccuracies } from "../stats/routing-scores.js";
import type { EmbeddedLabelData, FitOptions, FitSplit, FittedMethod, RoutingMethod } from "../eval/types.js";
import { parseWith } from "../util/validate.js";
import type { LogitModel } from "./logit-model.js";
import { embedLlmMfModel, linearMirtModel, logisticRegressionModel } from "./models.js";
import { DEFAULT_LOGIT_TRAIN, predictLogitModel, trainLogitModel, type LogitTrainConfig } from "./train-logit.js";

/** Options shared by the gradient-trained baselines. */
export interface GradientBaselineOptions {
  /** L2 values tried on validation (the best validation log-loss wins). */
  readonly l2Grid?: readonly number[];
  readonly learningRate?: number;
  readonly batchSize?: number;
  readonly maxEpochs?: number;
  readonly patience?: number;
}

const trainingOptions = {
  l2Grid: z.array(z.number().min(0)).min(1).optional(),
  learningRate: z.number().positive().optional(),
  batchSize: z.number().int().positive().optional(),
  maxEpochs: z.number().int().positive().optional(),
  patience: z.number().int().positive().optional(),
};
/** Options of per-model logistic regression (no latent dimension: a `dim` is an error, not ignored). */
const logisticOptionsSchema = z.object(trainingOptions).strict();
/** Options of the baselines with a latent dimension (linear MIRT, EmbedLLM MF). */
const optionsSchema = z.object({ ...trainingOptions, dim: z.number().int().positive().optional() }).strict();

type Build = (data: EmbeddedLabelData, prior: Float64Array, rng: Rng) => LogitModel;

/**
 * A gradient-trained baseline: the L2 strength is tuned on validation with the FIRST seed the
 * method is fitted with on a dataset and split, and reused for the other seeds (each seed re-initialises and
 * re-shuffles); another split is tuned afresh. The grid search is reported in the fitted method's description.
 */
function gradientBaseline(
  name: string,
  options: GradientBaselineOptions,
  defaults: { learningRate: number; l2Grid: readonly number[] },
  build: Build,
  describe: string,
): RoutingMethod {
  const base: LogitTrainConfig = {
    ...DEFAULT_LOGIT_TRAIN,
    learningRate: options.learningRate ?? defaults.learningRate,
    ...(options.batchSize !== undefined && { batchSize: options.batchSize }),
    ...(options.maxEpochs !== undefined && { maxEpochs: options.maxEpochs }),
    ...(options.patience !== undefined && { patience: options.patience }),
  };
  const grid = options.l2Grid ?? defaults.l2Grid;
  // Keyed by the data AND the split: an L2 chosen on one split's val must not be reused on another split,
  // whose test items it may have seen.
  const tuned = new WeakMap<EmbeddedLabelData, Map<string, { l2: number; search: string }>>();
  return {
    name,
    seeded: true,
    async fit(data: EmbeddedLabelData, split: FitSplit, fit: FitOptions): Promise<FittedMethod> {
      const prior = modelAccuracies(data, split.train, data.nModels).map((a) => (Number.isFinite(a) ? a : 0.5));
      const run = (l2: number) => {
        const model = build(data, prior, createRng(fit.seed));
        const result = trainLogitModel(model, data, split, { ...base, l2 }, fit.seed, (e) =>
          fit.onProgress?.({ method: name, ...e, note: `l2=${l2}` }),
        );
        return { model, result, l2 };
      };
      const key = splitKey(split);
      let chosen = tuned.get(data)?.get(key);
      let best: ReturnType<typeof run>;
      if (chosen) {
        best = run(chosen.l2);
      } else {
        const runs = grid.map(run);
        best = runs.reduce((a, b) => (b.result.valLoss < a.result.valLoss ? b : a));
        chosen = {
          l2: best.l2,
          search: runs.map((r) => `l2=${r.l2}: val log-loss ${r.result.valLoss.toFixed(4)}`).join(", "),
        };
        if (!tuned.has(data)) tuned.set(data, new Map());
        tuned.get(data)!.set(key, chosen);
      }
      const { model, result } = best;
      return {
        description: `${describe}; Adam lr ${base.learningRate}, batch ${base.batchSize}, l2 ${best.l2} (tuned on val: ${chosen.search}); stopped at epoch ${result.epochs}, best epoch ${result.bestEpoch}`,
        predict: (X, rows) => predictLogitModel(model, X, data.dim, rows),
      };
    },
  };
}

/**
 * Per-model logistic regression on the query embedding, L2 tuned on validation.
 *
 * @example
 * ```ts
 * const fitted = await logisticRegressionBaseline().fit(data, { train, val }, { seed: 1 });
 * ```
 */
export function logisticRegressionBaseline(options: GradientBaselineOptions = {}): RoutingMethod {
  parseWith(logisticOptionsSchema, options, "logisticRegressionBaseline");
  return gradientBaseline(
    "logistic-regression",
    options,
    { learningRate: 3e-3, l2Grid: [1e-4, 1e-3, 1e-2] },
    (data, prior, rng) => logisticRegressionModel(data.dim, data.nModels, prior, rng),
    "one logistic regression per model on the embedding",
  );
}

/**
 * Linear multidimensional IRT (alpha and beta linear in the embedding, ability table theta of
 * dimension `dim`, default 16), L2 tuned on validation.
 *
 * @example
 * ```ts
 * const fitted = await linearMirtBaseline({ dim: 16 }).fit(data, { train, val }, { seed: 1 });
 * ```
 */
export function linearMirtBaseline(options: GradientBaselineOptions & { readonly dim?: number } = {}): RoutingMethod {
  parseWith(optionsSchema, options, "linearMirtBaseline");
  const d = options.dim ?? 16;
  return gradientBaseline(
    "linear-mirt",
    options,
    { learningRate: 2e-3, l2Grid: [1e-5, 1e-4, 1e-3] },
    (data, prior, rng) => linearMirtModel(data.dim, data.nModels, d, prior, rng),
    `alpha = A e + a0, beta = v . e + c, theta in R^${d}`,
  );
}

/**
 * EmbedLLM-style matrix factorisation (model embedding table elementwise-times a linear
 * projection of the query embedding to `dim` dims, default 32, then a linear classifier),
 * L2 tuned on validation.
 *
 * @example
 * ```ts
 * const fitted = await embedLlmMfBaseline().fit(data, { train, val }, { seed: 1 });
 * ```
 */
export function embedLlmMfBaseline(options: GradientBaselineOptions & { readonly dim?: number } = {}): RoutingMethod {
  parseWith(optionsSchema, options, "embedLlmMfBaseline");
  const h = options.dim ?? 32;
  return gradientBaseline(
    "embedllm-mf",
    options,
    { learningRate: 2e-3, l2Grid: [1e-5, 1e-4, 1e-3] },
    (data, prior, rng) => embedLlmMfModel(data.dim, data.nModels, h, prior, rng),
    `logit = w . (E_m * (P e + p0)) + c, h = ${h}`,
  );
}

/** A content key of a split's train and val items (FNV-1a over the indices, with the part sizes). */
function splitKey(split: FitSplit): string {
  let h = 0x811c9dc5;
  for (const part of [split.train, split.val]) {
    for (const i of part) h = Math.imul(h ^ i, 0x01000193) >>> 0;
    h = Math.imul(h ^ 0xffff, 0x01000193) >>> 0;
  }
  return `${split.train.length}/${split.val.length}/${h.toString(16)}`;
}
