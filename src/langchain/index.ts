/**
 * The LangChain integration: IrtRouter (a BaseChatModel), irtRouterMiddleware (for createAgent), their options,
 * route decisions, feedback and calibration; the router's default scorer is registered by the package root.
 */
export { IrtRouter } from "./model/router.js";
export { irtRouterMiddleware, type IrtRouterMiddlewareOptions } from "./agent/irt-router-middleware.js";
export type {
  IrtRouterOptions,
  RoutedModelConfig,
  FeedbackSink,
  RouterLogger,
  AbilityLearner,
} from "../core/contracts/options.js";
export { irtRouterOptionsSchema, UNATTRIBUTED_SOURCE, DEFAULT_UNATTRIBUTED_WEIGHT } from "../core/contracts/options.js";
export type {
  RouteDecision,
  CandidateRecord,
  AttemptRecord,
  ExclusionRecord,
  DecisionRecord,
  RealizedCostRecord,
} from "../core/contracts/route-decision.js";
export type { RouteTracingOptions } from "../tracing/route-span.js";
export { routeDecisionOf } from "../core/contracts/route-decision.js";
export { NoCandidatesError } from "../errors.js";
export { MemoryFeedbackSink } from "../core/feedback/recorder.js";
export { routingText, messageText } from "../core/routing/routing-text.js";
export type { RoutingTextOptions } from "../core/contracts/options.js";
export { RUN_ID_METADATA_KEY } from "./calls/delegate.js";
export type { RouterCalibrateOptions } from "./model/calibrate.js";
export { feedbackEventId, type FeedbackOptions } from "../core/feedback/outcome-events.js";
export { TASK_METADATA_KEY, taskOf } from "../core/routing/task-hint.js";
export type { EscalationRecord } from "../core/contracts/route-decision.js";
export type {
  RouterStore,
  SharedDecisionLog,
  SharedDecision,
  SharedSpend,
  SequencedEvent,
  StreamListener,
  StoreSubscription,
} from "../core/contracts/router-store.js";
