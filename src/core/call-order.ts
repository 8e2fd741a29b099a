/**
 * Trying a plan's models best first: each try is recorded in the decision (`attempts`), the model that answered
 * becomes `chosen`, and a failure falls back to the next model unless the caller cancelled or `fallbackOn` refuses.
 * One home for the rule, used by every face (LangChain's fallback chain and middleware, {@link RouterCore.failed}).
 */
import { snapshot, type RouteDecision } from "./contracts/route-decision.js";
import { capErrorText, describeError } from "./contracts/error-text.js";
import type { RoutePlan } from "./routing/route-plan.js";
import type { ModelSlot } from "./routing/model-slots.js";

/** Records an answered try of `modelId` (it becomes the decision's `chosen`). */
export function recordAnswered(decision: RouteDecision, modelId: string, ms: number): void {
  decision.chosen = modelId;
  decision.attempts.push({ id: modelId, ok: true, ms });
}

/** Records a failed try of `modelId`, its error as `Name: message` (first line, capped). */
export function recordFailed(decision: RouteDecision, modelId: string, error: unknown, ms: number): void {
  decision.attempts.push({ id: modelId, ok: false, error: capErrorText(describeError(error)), ms });
}

/**
 * Turns the last answered try of `modelId` into a failed one with `errorText` (capped), when the answer turns out
 * not to be the model's or not to be whole: no model is credited for it. No answered try: nothing changes.
 */
export function revokeAnswer(decision: RouteDecision, modelId: string, errorText: string): void {
  const i = decision.attempts.findLastIndex((a) => a.id === modelId && a.ok);
  if (i >= 0) decision.attempts[i] = { ...decision.attempts[i]!, ok: false, error: capErrorText(errorText) };
}

/**
 * After every try failed: `chosen` goes back to the first choice, and the decision is attached to the last error as
 * `error.irtRouter` (a JSON-safe copy).
 */
export function recordAllFailed(decision: RouteDecision, lastError: unknown): void {
  decision.chosen = decision.attempts[0]?.id ?? decision.chosen;
  if (lastError instanceof Error) {
    Object.defineProperty(lastError, "irtRouter", { value: snapshot(decision), enumerable: false, configurable: true });
  }
}

/**
 * Calls the plan's models best-first until one succeeds, recording each try in the decision. A failure the
 * caller calls a cancellation (`cancelled`), or one `fallbackOn` refuses, is not retried; when no try succeeds,
 * the last error is rethrown with the decision as `error.irtRouter`. An aborted `signal` stops before the next try.
 */
export async function callInOrder<T, M>(
  plan: RoutePlan<M>,
  call: (slot: ModelSlot<M>, attempt: number) => Promise<T>,
  rules: { signal?: AbortSignal; cancelled: (error: unknown) => boolean; fallbackOn: (error: unknown) => boolean },
): Promise<{ out: T; slot: ModelSlot<M> }> {
  const { decision } = plan;
  let lastError: unknown;
  for (const [i, slot] of plan.order.entries()) {
    // a cancellation while the query was being encoded, or during a failed attempt, stops here (not every
    // provider checks an already-aborted signal)
    if (rules.signal?.aborted) {
      lastError = rules.signal.reason;
      break;
    }
    const t0 = performance.now();
    decision.chosen = slot.id;
    try {
      const out = await call(slot, i);
      recordAnswered(decision, slot.id, performance.now() - t0);
      return { out, slot };
    } catch (error) {
      recordFailed(decision, slot.id, error, performance.now() - t0);
      lastError = error;
      if (rules.cancelled(error) || !rules.fallbackOn(error)) break;
    }
  }
  recordAllFailed(decision, lastError);
  throw lastError;
}
