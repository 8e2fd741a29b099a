/**
 * Online ability learning: Gaussian ability posteriors, the OnlineLearner, feedback events, run attribution,
 * adaptive calibration, the fitted known-model prior and the AbilityStore interface (stores are in adapters/stores).
 */
export type { FeedbackEvent } from "./events.js";
export { assertFeedbackEvent, DEFAULT_ITEM_BOUNDS, feedbackEventProblem, itemBoundsSchema } from "./event-check.js";
export type { EventCheckOptions, EventProblem, ItemBounds } from "./event-check.js";
export { idHasher, pseudonymizeEvent, pseudonymizeState } from "./pseudonymize.js";
export type { HashRunIds } from "./pseudonymize.js";
export { AbilityPosterior, FULL_COVARIANCE_MAX_DIM, predictiveP } from "./posterior.js";
export type { CovarianceMode, GaussianPrior, LogitMoments, PosteriorOptions, PosteriorState } from "./posterior.js";
export {
  DEFAULT_SHRINKAGE,
  populationPrior,
  knownModelPrior,
  placedModelPrior,
  similarModelsPrior,
  type AbilityPlacement,
} from "./prior.js";
export type { PopulationPrior, PopulationPriorOptions } from "./prior.js";
export { OnlineLearner } from "./learner.js";
export type {
  CandidateScore,
  Exploration,
  KnownAbility,
  LearnerItem,
  LearnerOptions,
  LearnerState,
  ModelStart,
  ObserveResult,
  RestoreMembership,
  RestoreSource,
  ScorerPriorSource,
} from "./learner.js";
export { ItemTracker } from "./tracker.js";
export { attributeRun, stepEventId, DEFAULT_ATTRIBUTION } from "./attribution.js";
export type { Attribution, AttributionOptions, RunOutcome, RunStep } from "./attribution.js";
export { calibrateModel, probeBankFrom } from "./new-model-calibration.js";
export type {
  CalibrateArgs,
  CalibrationOptions,
  CalibrationProgress,
  CalibrationResult,
  CalibrationStopReason,
  Probe,
  ProbeBank,
} from "./new-model-calibration.js";
export { extractChoiceLetter, gradeMultipleChoice } from "./grader.js";
export type { Grader } from "./grader.js";
export { seededRng, type Rng } from "../util/random.js";
export {
  TaskOffsets,
  DEFAULT_TASK_OFFSET_SD,
  checkTask,
  type TaskOffset,
  type TaskOffsetsState,
} from "./task-offsets.js";
export {
  assertValidFeedbackEvents,
  parseStoreOptions,
  prepareFeedbackEvents,
  snapshotNeedsReopen,
  storeOptionsSchema,
  StoreEventRules,
  StoreLedger,
  DedupeWindow,
  DEFAULT_DEDUPE_WINDOW,
  toStrictJson,
} from "./store.js";
export type { PrepareOptions } from "./store.js";
export type { AbilityStore, AppendResult, LoadResult } from "./store.js";
export { BUDGET_EPSILON, MemoryBudgetLedger } from "./budget.js";
export type { BudgetLimit, BudgetReservation, FeedbackBudgetLedger } from "./budget.js";
export { fitKnownPriorOnTraining, fitKnownScale } from "./known-prior.js";
export type { KnownPrior, KnownPriorRecord, KnownScaleFit, KnownScaleFitArgs, WorkloadGroup } from "./known-prior.js";
export { predictAccuracy } from "./predict.js";
export { calibratedAccuracy, type PredictCalibration } from "./interval-calibration.js";
export type {
  AccuracyPrediction,
  ModelToPredict,
  PredictAccuracyArgs,
  PredictionItems,
  ProbeOutcome,
} from "./predict.js";
