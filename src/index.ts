/**
 * irt-router: route each step of a LangChain agent to the chat model most likely to get it right,
 * at the price you want to pay.
 *
 * The root entry point holds what most users need: the LangChain router and middleware, the scorer
 * interface and the IRT-MoE scorer, policies, online learning and the typed errors. Each area's full
 * API (building blocks, metrics, baselines) is available from its own subpath:
 * `irt-router/scorer`, `irt-router/encoders`, `irt-router/data`, `irt-router/policy`,
 * `irt-router/learning`, `irt-router/eval`, `irt-router/baselines`; everything with I/O (encoders
 * that load weights or call services, dataset loaders, artifacts, stores) is in `irt-router/adapters`.
 *
 * @packageDocumentation
 */
export * from "./errors.js";

// LangChain integration
export * from "./langchain/index.js";

// Scoring
export type { Scorer, ItemParams, CatalogEntry, ModelScore } from "./scorer/types.js";
export { IrtMoeScorer, type IrtMoeScorerInit, type ScorerExplanation } from "./scorer/scorer.js";
export { trainIrtMoe, type EmbeddedLabels, type TrainedIrtMoe, type TrainOptions, type EpochReport } from "./scorer/train.js";
export { predictItems, itemParamsOf } from "./scorer/forward.js";
export { DEFAULT_IRT_MOE_CONFIG, type IrtMoeConfig } from "./scorer/config.js";
export { MODEL_ALIASES, canonicalModelId } from "./scorer/aliases.js";
export { datasetModelNames } from "./scorer/catalog.js";

// Encoders and data (types and pure helpers)
export type { QueryEncoder, EncoderInfo } from "./encoders/types.js";
export { encoderInfo, assertSameEncoder } from "./encoders/identity.js";
export type { CorrectnessDataset, DatasetItem, ModelPrice, Split } from "./data/types.js";
export { splitOf, splitIndices } from "./data/split.js";

// Policies and cost
export type { PolicyConfig, Candidate, RankedCandidate, PolicyContext } from "./policy/types.js";
export { policySchema, parsePolicy, describePolicy } from "./policy/schema.js";
export { rankCandidates } from "./policy/rank.js";
export { estimateTokens } from "./policy/tokens.js";
export { expectedCostUsd, stepCostUsd } from "./policy/expected-cost.js";
export { cachedInputRule, withCachedInputPrice, DEFAULT_CACHE_LIFETIME_MS } from "./policy/cached-input.js";
export { listPrice, ROUTERBENCH_PRICES } from "./policy/prices.js";

// Online learning
export type { FeedbackEvent } from "./learning/events.js";
export type { AbilityStore } from "./learning/store.js";
export { OnlineLearner, type LearnerOptions, type LearnerState, type KnownAbility } from "./learning/learner.js";
export { AbilityPosterior, predictiveP } from "./learning/posterior.js";
export { attributeRun, stepEventId, type AttributionOptions, type RunOutcome, type RunStep } from "./learning/attribution.js";
export { calibrateModel, type CalibrationResult, type ProbeBank, type Probe } from "./learning/calibrate.js";
export { gradeMultipleChoice, extractChoiceLetter } from "./learning/grader.js";

// Evaluation
export { evaluate, type EvalReport, type EvaluateOptions } from "./eval/evaluate.js";
export { formatEvalMarkdown, formatEvalJson } from "./eval/format.js";
