/**
 * Baselines the evaluation harness compares the IRT-MoE scorer against, all implemented in
 * plain TypeScript on typed arrays: kNN over query embeddings, per-model logistic regression,
 * linear multidimensional IRT and EmbedLLM-style matrix factorisation.
 */
export { knnBaseline, type KnnOptions } from "./knn.js";
export {
  logisticRegressionBaseline,
  linearMirtBaseline,
  embedLlmMfBaseline,
  type GradientBaselineOptions,
} from "./gradient-baselines.js";
export { trainLogitModel, predictLogitModel, type LogitTrainConfig, type LogitTrainResult } from "./train-logit.js";
export type { LogitModel } from "./logit-model.js";
