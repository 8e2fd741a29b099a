/**
 * The LangChain integration: IrtRouter (a BaseChatModel), irtRouterMiddleware (for createAgent), their options,
 * route decisions, feedback and calibration; the router's default scorer is registered by the package root.
 */
export { IrtRouter } from "./router.js";
export { irtRouterMiddleware, type IrtRouterMiddlewareOptions } from "./middleware.js";
export type { IrtRouterOptions, RoutedModelConfig, FeedbackSink, RouterLogger, AbilityLearner } from "./options.js";
export { irtRouterOptionsSchema } from "./options.js";
export type { RouteDecision, CandidateRecord, AttemptRecord, ExclusionRecord } from "./decision.js";
export { routeDecisionOf } from "./decision.js";
export { NoCandidatesError } from "../errors.js";
export { MemoryFeedbackSink } from "./feedback-recorder.js";
export { routingText, messageText } from "./routing-text.js";
export type { RoutingTextOptions } from "./options.js";
export { RUN_ID_METADATA_KEY } from "./delegate.js";
export type { RouterCalibrateOptions } from "./calibrate.js";
export { feedbackEventId, type FeedbackOptions } from "./feedback.js";
export { TASK_METADATA_KEY, taskOf } from "./task-hint.js";
export type { EscalationRecord } from "./decision.js";
export type {
  RouterStore,
  SharedDecisionLog,
  SharedDecision,
  SharedSpend,
  SequencedEvent,
  StreamListener,
  StoreSubscription,
} from "./shared-state.js";
