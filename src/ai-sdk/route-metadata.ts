/**
 * What the AI SDK face reports and reads: the decision as JSON-safe `providerMetadata["irt-router"]`, and the
 * provider's `usage` (`LanguageModelV3Usage`) as the core's {@link TokenUsage}.
 */
import type { JSONObject, LanguageModelV3Usage } from "@ai-sdk/provider";
import type { RouteDecision, TokenUsage } from "../core/contracts/route-decision.js";
import { decisionRecord, routeReason } from "../core/routing/decision-record.js";

/**
 * The decision as `providerMetadata["irt-router"]`: the decision id and run, the model that answered (`chosen`), the
 * policy, why (`reason`: policy, fallback, escalation, shadow, only-candidate), its p and expected cost, the realized
 * cost and the reported tokens once answered, the models tried (`tried`, `fallbackFrom`), and every candidate's p
 * and expected cost. JSON-safe (no undefined, no typed arrays).
 */
export function decisionMetadata(decision: RouteDecision): JSONObject {
  const { time: _time, model, ...record } = decisionRecord(decision, new Date(0));
  const meta = {
    ...record,
    chosen: model,
    reason: routeReason(decision),
    candidates: decision.candidates.map((c) => ({
      id: c.id,
      p: c.p,
      expectedCostUsd: c.expectedCost,
      ...(c.cachedTokens !== undefined ? { cachedTokens: c.cachedTokens } : {}),
    })),
    ...(decision.excluded.length > 0 ? { excluded: decision.excluded.map((e) => ({ ...e })) } : {}),
    ...(decision.escalated
      ? { escalated: { ...decision.escalated, passedOver: [...decision.escalated.passedOver] } }
      : {}),
  };
  return JSON.parse(JSON.stringify(meta)) as JSONObject;
}

const count = (n: number | undefined): number | undefined =>
  typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;

/**
 * The provider's usage as the core reads it: `inputTokens.total` (cached tokens included), `cacheRead`,
 * `cacheWrite`, `outputTokens.total`. Undefined when the provider reported no token counts.
 */
export function tokenUsage(usage: LanguageModelV3Usage | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const out = {
    inputTokens: count(usage.inputTokens?.total),
    outputTokens: count(usage.outputTokens?.total),
    cacheReadTokens: count(usage.inputTokens?.cacheRead),
    cacheWriteTokens: count(usage.inputTokens?.cacheWrite),
  };
  const present = Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as TokenUsage;
  return Object.keys(present).length > 0 ? present : undefined;
}
