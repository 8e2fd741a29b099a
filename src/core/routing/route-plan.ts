/** The plan of one routed call: its decision and the order in which to try the models. */
import type { RouteDecision } from "../contracts/route-decision.js";
import type { LoggedDecision } from "./decision-log.js";
import type { PromptShape } from "./run-memory.js";
import type { ModelSlot } from "./model-slots.js";

/** A decision plus the order in which to try the models (`M`: the adapter's model object). */
export interface RoutePlan<M = unknown> {
  readonly decision: RouteDecision;
  /** Models to try, best first, at most `maxAttempts`. */
  readonly order: readonly ModelSlot<M>[];
  readonly logged: LoggedDecision;
  /** The call's prompt as the prompt cache sees it (see {@link RunMemory}). */
  readonly shape: PromptShape;
  /** Per candidate: input tokens its provider has cached for this run (counted whether or not cost is cache-aware). */
  readonly cachedTokens: ReadonlyMap<string, number>;
}
