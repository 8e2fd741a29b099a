/**
 * A settled decision (answered, or failed on every model tried) as the two things that leave the router: the
 * `irt_router.route` span's content ({@link tracedRoute}) and a decision-log line ({@link decisionRecord}, the JSON
 * Lines that `irt-router report --decisions` reads).
 */
import type { TracedRoute } from "../../tracing/route-span.js";
import type { DecisionRecord, RouteDecision } from "../contracts/route-decision.js";

export type { DecisionRecord };

/** Why the decision's model: shadow, fallback, escalation, the only candidate, or the policy's ranking. */
export function routeReason(decision: RouteDecision): string {
  if (decision.shadow) return "shadow";
  if (fallbackFrom(decision) !== undefined) return "fallback";
  if (decision.escalated) return "escalation";
  return decision.candidates.length === 1 ? "only-candidate" : "policy";
}

/** The first model tried, when a later one answered. */
function fallbackFrom(decision: RouteDecision): string | undefined {
  const first = decision.attempts[0]?.id;
  const answered = answeredBy(decision);
  return first !== undefined && answered !== undefined && answered !== first ? first : undefined;
}

function answeredBy(decision: RouteDecision): string | undefined {
  const last = decision.attempts.at(-1);
  return last?.ok ? last.id : undefined;
}

/** The span's content for a settled decision (`text`: the routing text, used only when the tracer opts it in). */
export function tracedRoute(decision: RouteDecision, text?: string): TracedRoute {
  const chosen = decision.candidates.find((c) => c.id === decision.chosen);
  const failed = decision.attempts.filter((a) => !a.ok).at(-1);
  const from = fallbackFrom(decision);
  return {
    model: decision.chosen,
    policy: decision.policy,
    reason: routeReason(decision),
    p: chosen?.p ?? 0,
    expectedCostUsd: chosen?.expectedCost ?? 0,
    ...(from !== undefined ? { fallbackFrom: from } : {}),
    ...(decision.realized ? { realizedCostUsd: decision.realized.costUsd } : {}),
    candidates: decision.candidates.map((c) => ({ id: c.id, p: c.p, expectedCostUsd: c.expectedCost })),
    ok: answeredBy(decision) !== undefined,
    ...(answeredBy(decision) === undefined && failed?.error ? { error: failed.error } : {}),
    ...(decision.runId !== undefined ? { runId: decision.runId } : {}),
    ...(text !== undefined ? { text } : {}),
  };
}

/** The decision-log line of a settled decision, at `now`. */
export function decisionRecord(decision: RouteDecision, now: Date): DecisionRecord {
  const chosen = decision.candidates.find((c) => c.id === decision.chosen);
  const from = fallbackFrom(decision);
  const realized = decision.realized;
  const routed = decision.shadow && decision.candidates.find((c) => c.id === decision.shadow!.chosen);
  return {
    decisionId: decision.decisionId,
    time: now.toISOString(),
    ...(decision.runId !== undefined ? { runId: decision.runId } : {}),
    model: decision.chosen,
    category: decision.task ?? "uncategorised",
    policy: decision.policy,
    p: chosen?.p ?? 0,
    expectedCostUsd: chosen?.expectedCost ?? 0,
    ...(realized
      ? {
          realizedCostUsd: realized.costUsd,
          costSource: realized.source,
          ...(realized.inputTokens !== undefined ? { inputTokens: realized.inputTokens } : {}),
          ...(realized.outputTokens !== undefined ? { outputTokens: realized.outputTokens } : {}),
          ...(realized.cacheReadTokens !== undefined ? { cacheReadTokens: realized.cacheReadTokens } : {}),
          ...(realized.cacheWriteTokens !== undefined ? { cacheWriteTokens: realized.cacheWriteTokens } : {}),
        }
      : {}),
    answered: answeredBy(decision) !== undefined,
    ...(from !== undefined ? { fallbackFrom: from } : {}),
    tried: decision.attempts.map((a) => a.id),
    ...(routed ? { routed: routed.id, routedP: routed.p, routedExpectedCostUsd: routed.expectedCost } : {}),
  };
}
