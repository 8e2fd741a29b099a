/**
 * irt-router: route each step of a LangChain agent to the chat model most likely to get it right,
 * at the price you want to pay.
 *
 * The root entry point holds what an application needs: the LangChain router and middleware, their options and
 * route decisions, the policy config, the online learner, the store, encoder and scorer interfaces, and the typed
 * errors (every error is an {@link IrtRouterError} with a `code`). Each area's full API (training, evaluation,
 * building blocks, metrics, baselines) is in its own subpath: `irt-router/scorer`, `irt-router/encoders`,
 * `irt-router/data`, `irt-router/policy`, `irt-router/learning`, `irt-router/eval`, `irt-router/baselines`;
 * everything with I/O (encoders that load weights or call services, dataset loaders, artifacts, stores) is in
 * `irt-router/adapters`. The root stays under 40 names (test/package.test.ts); run `npm run api:update` after
 * changing an export and commit the report in etc/api/.
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

// LangChain integration
export { IrtRouter } from "./langchain/model/router.js";
export { irtRouterMiddleware, type IrtRouterMiddlewareOptions } from "./langchain/agent/irt-router-middleware.js";
export type { IrtRouterOptions, RoutedModelConfig, FeedbackSink, RouterLogger } from "./core/contracts/options.js";
export type {
  RouteDecision,
  CandidateRecord,
  AttemptRecord,
  ExclusionRecord,
} from "./core/contracts/route-decision.js";
export { routeDecisionOf } from "./core/contracts/route-decision.js";
export { MemoryFeedbackSink } from "./core/feedback/recorder.js";
export type { FeedbackOptions } from "./core/feedback/outcome-events.js";
export { routingText } from "./core/routing/routing-text.js";

// Interfaces an application implements or passes in
export type { Scorer, ItemParams } from "./scorer/types.js";
export type { QueryEncoder, EncoderInfo } from "./encoders/types.js";
export type { PolicyConfig } from "./policy/types.js";
export { parsePolicy } from "./policy/schema.js";

// Online learning
export type { FeedbackEvent } from "./learning/events.js";
export type { AbilityStore } from "./learning/store.js";
export { OnlineLearner, type LearnerOptions, type LearnerState } from "./learning/learner.js";
