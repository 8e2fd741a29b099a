/**
 * The LangChain face, `irt-router/langchain`: IrtRouter (a BaseChatModel), irtRouterMiddleware (for createAgent),
 * their options, route decisions, feedback and calibration, over the framework-neutral core (`irt-router`). The
 * router's default scorer is registered by the entry point (langchain.ts).
 */
export { IrtRouter } from "./model/router.js";
export {
  irtRouterMiddleware,
  type IrtRouterMiddlewareOptions,
  type MiddlewareRoutingOptions,
} from "./agent/irt-router-middleware.js";
export type { IrtRouterOptions, RoutedModelConfig } from "./bridge/options.js";
export { irtRouterOptionsSchema } from "./bridge/options.js";
export type { FeedbackSink, RouterLogger, AbilityLearner, RoutingTextOptions } from "../core/contracts/options.js";
export { UNATTRIBUTED_SOURCE, DEFAULT_UNATTRIBUTED_WEIGHT } from "../core/contracts/options.js";
export type {
  RouteDecision,
  CandidateRecord,
  AttemptRecord,
  ExclusionRecord,
  DecisionRecord,
  RealizedCostRecord,
  EscalationRecord,
} from "../core/contracts/route-decision.js";
export type { RouteTracingOptions } from "../tracing/route-span.js";
export { routeDecisionOf } from "../core/contracts/route-decision.js";
export { NoCandidatesError } from "../errors.js";
export { MemoryFeedbackSink } from "../core/feedback/recorder.js";
export { routingText, messageText, toRouteMessages } from "./bridge/route-messages.js";
export { RUN_ID_METADATA_KEY } from "./calls/delegate.js";
export type { RouterCalibrateOptions } from "./model/calibrate.js";
export { feedbackEventId, type FeedbackOptions } from "../core/feedback/outcome-events.js";
export { TASK_METADATA_KEY, taskOf } from "../core/routing/task-hint.js";
export type {
  RouterStore,
  SharedDecisionLog,
  SharedDecision,
  SharedSpend,
  SequencedEvent,
  StreamListener,
  StoreSubscription,
} from "../core/contracts/router-store.js";
