/**
 * The LangChain integration: IrtRouter (a BaseChatModel), irtRouterMiddleware (for createAgent), their options,
 * route decisions, feedback and calibration; the router's default scorer is registered by the package root.
 */
export { IrtRouter } from "./model/router.js";
export {
  irtRouterMiddleware,
  type IrtRouterMiddlewareOptions,
  type MiddlewareRoutingOptions,
} from "./agent/irt-router-middleware.js";
export type {
  IrtRouterOptions,
  RoutedModelConfig,
  FeedbackSink,
  RouterLogger,
  AbilityLearner,
} from "./contracts/options.js";
export { irtRouterOptionsSchema, UNATTRIBUTED_SOURCE, DEFAULT_UNATTRIBUTED_WEIGHT } from "./contracts/options.js";
export type {
  RouteDecision,
  CandidateRecord,
  AttemptRecord,
  ExclusionRecord,
  DecisionRecord,
  RealizedCostRecord,
} from "./contracts/route-decision.js";
export type { RouteTracingOptions } from "../tracing/route-span.js";
export { routeDecisionOf } from "./contracts/route-decision.js";
export { NoCandidatesError } from "../errors.js";
export { MemoryFeedbackSink } from "./feedback/recorder.js";
export { routingText, messageText } from "./routing/routing-text.js";
export type { RoutingTextOptions } from "./contracts/options.js";
export { RUN_ID_METADATA_KEY } from "./calls/delegate.js";
export type { RouterCalibrateOptions } from "./model/calibrate.js";
export { feedbackEventId, type FeedbackOptions } from "./feedback/outcome-events.js";
export { TASK_METADATA_KEY, taskOf } from "./routing/task-hint.js";
export type { EscalationRecord } from "./contracts/route-decision.js";
export type {
  RouterStore,
  SharedDecisionLog,
  SharedDecision,
  SharedSpend,
  SequencedEvent,
  StreamListener,
  StoreSubscription,
} from "./contracts/router-store.js";
