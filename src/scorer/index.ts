/**
 * The IRT-MoE scorer: the Scorer interface, the typed-array forward pass (expert, mixture, irt-head, forward),
 * training with tfjs (train, train-loop, graph, weights), calibration, metrics, the artifact format and catalog.
 */
import { scorerManifestSchema } from "./manifest-schema.js";

export type { Scorer, ItemParams, CatalogEntry, ModelScore } from "./types.js";
export { DEFAULT_IRT_MOE_CONFIG, resolveIrtMoeConfig, irtMoeConfigSchema, type IrtMoeConfig } from "./config.js";
export {
  trainIrtMoe,
  graphLogits,
  type EmbeddedLabels,
  type EpochReport,
  type TrainedIrtMoe,
  type TrainOptions,
} from "./train.js";
export { foldedItemParams, predictItems, itemParamsOf } from "./forward.js";
export { mixtureForward, softmaxInPlace, type MixtureOutput } from "./mixture.js";
export { denseForward, expertForward } from "./expert.js";
export { irtHeads, irtLogit, scoreRows } from "./irt-head.js";
export { sigmoid } from "../util/maths.js";
export {
  initWeights,
  cloneWeights,
  shapeOf,
  type IrtMoeWeights,
  type DenseWeights,
  type ExpertWeights,
} from "./weights.js";
export { fitTemperature, type CalibrationReport } from "./temperature-scaling.js";
export { rocAuc, ece, logLoss, routingAccuracy, observedPairs, type CsrLabels } from "./metrics.js";
export { scorerMetrics, betaDifficultyR, effectiveDifficulty, type ScorerMetrics } from "./evaluate.js";
export { pearson } from "../stats/metrics.js";
export { joinDatasets, type EmbeddedDataset, type JoinedData, type DatasetPart } from "./dataset.js";
export { MODEL_ALIASES, canonicalModelId, aliasIndex, guessProvider, type ModelAlias } from "./aliases.js";
export { buildCatalog, datasetModelNames, ModelResolver, type ModelStats } from "./catalog.js";
export {
  currentModels,
  lookupKey,
  ModelCatalog,
  modelCatalogDataSchema,
  parseModelCatalogData,
  type CatalogPrior,
  type CurrentModel,
  type ParsedModelCatalogData,
  type ModelPrior,
  type PriorMethod,
} from "./model-catalog.js";
export { IrtMoeScorer, type IrtMoeScorerInit, type EncoderSource, type ScorerExplanation } from "./scorer.js";
export {
  artifactFiles,
  decodeArtifact,
  type ScorerArtifact,
  type ArtifactFiles,
  type DecodedArtifact,
} from "./artifact.js";
export {
  ARTIFACT_FORMAT,
  ARTIFACT_FORMAT_VERSION,
  READABLE_FORMAT_VERSIONS,
  CATALOG_FORMAT_VERSION,
  MANIFEST_CHECKSUM_FIELD,
  manifestChecksum,
  canonicalJson,
  MANIFEST_FILE,
  WEIGHTS_FILE,
  CATALOG_FILE,
  tensorLayout,
  encodeWeights,
  decodeWeights,
  parseManifest,
  type ScorerManifest,
  type TensorEntry,
} from "./serialize.js";
export { trainingRng, type Rng } from "../util/random.js";

/** The schema of a scorer artifact's `manifest.json`, as {@link parseManifest} checks it. */
export const manifestSchema = scorerManifestSchema.unwrap();
export { ArtifactError, TrainingError } from "../errors.js";
