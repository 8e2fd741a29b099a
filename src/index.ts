/**
 * irt-router: route each step of an agent to the chat model most likely to get it right, at the price you want to
 * pay.
 *
 * The root entry point is framework-neutral (it loads no LangChain or AI SDK package): the {@link RouterCore}, its
 * options, messages and route decisions, the policy config, the online learner, the store, encoder and scorer
 * interfaces, and the typed errors (every error is an {@link IrtRouterError} with a `code`). The framework faces are
 * subpaths: `irt-router/langchain` (IrtRouter, irtRouterMiddleware) and `irt-router/ai-sdk` (createIrtRouterModel,
 * irtPrepareStep). Each area's full API (training, evaluation, building blocks, metrics, baselines) is in its own
 * subpath: `irt-router/scorer`, `irt-router/encoders`, `irt-router/data`, `irt-router/policy`, `irt-router/learning`,
 * `irt-router/eval`, `irt-router/baselines`; everything with I/O (encoders that load weights or call services, dataset
 * loaders, artifacts, stores) is in `irt-router/adapters`. The root stays under 40 names (test/package.test.ts); run
 * `npm run api:update` after changing an export and commit the report in etc/api/.
 *
 * @packageDocumentation
 */

// Typed errors (the rest: DatasetNotFoundError, DatasetFormatError from /data; ArtifactError, TrainingError from
// /scorer; EncoderInputError, CacheError from /encoders; all are IrtRouterError with a code)
export {
  IrtRouterError,
  type IrtRouterErrorCode,
  ValidationError,
  FeedbackError,
  StoreError,
  StoreCorruptedError,
  StoreLockedError,
  EncoderMismatchError,
  EncoderUnavailableError,
  EmbeddingProviderError,
  UnknownModelError,
  NoCandidatesError,
  FeedbackBudgetError,
  UnknownModelWarning,
} from "./errors.js";

// The framework-neutral router (framework faces: irt-router/langchain, irt-router/ai-sdk)
export { RouterCore, type RouteCall, type CorePlan } from "./core/router-core.js";
// (the root holds at most 40 names: a model's capabilities are CoreModelConfig["capabilities"], a tool call
// RouteMessage["toolCalls"], a realized cost RouteDecision["realized"], the options without models
// Omit<RouterCoreOptions, "models">)
export type { RouterCoreOptions, CoreModelConfig, FeedbackSink, RouterLogger } from "./core/contracts/options.js";
export type { RouteMessage } from "./core/contracts/route-message.js";
export type {
  RouteDecision,
  CandidateRecord,
  AttemptRecord,
  ExclusionRecord,
  TokenUsage,
} from "./core/contracts/route-decision.js";
export { MemoryFeedbackSink } from "./core/feedback/recorder.js";
export type { FeedbackOptions } from "./core/feedback/outcome-events.js";

// Interfaces an application implements or passes in
export type { Scorer, ItemParams } from "./scorer/types.js";
export type { QueryEncoder, EncoderInfo } from "./encoders/types.js";
export type { PolicyConfig } from "./policy/types.js";
export { parsePolicy } from "./policy/schema.js";

// Online learning
export type { FeedbackEvent } from "./learning/events.js";
export type { AbilityStore } from "./learning/store.js";
export { OnlineLearner, type LearnerOptions, type LearnerState } from "./learning/learner.js";
