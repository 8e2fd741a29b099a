/** The route decision: what the router chose for a call, why, and what it tried; attached to every reply. */
import type { ExclusionRecord } from "../../errors.js";

export type { ExclusionRecord } from "../../errors.js";

/** Why a call was escalated, in the decision. */
export interface EscalationRecord {
  /** The model whose failure triggered it (the last one to fail this step). */
  readonly from: string;
  /** `"tool-error"`: its tool call came back with status "error"; `"retry"`: the agent sent the step again. */
  readonly reason: "tool-error" | "retry";
  /** Models passed over for this step (every model that failed it and could have served it). */
  readonly passedOver: readonly string[];
  /** The bar: the highest p among the passed-over models (`"stronger"`), absent when nothing was passed over. */
  readonly pAbove?: number;
}

/** One candidate as the policy saw it, in the decision record. */
export interface CandidateRecord {
  /** The key the model was registered under in `models`. */
  readonly id: string;
  /** Predicted p(correct). */
  readonly p: number;
  /** Expected USD cost of the call, estimated before it (token estimate x list price). */
  readonly expectedCost: number;
  /** The policy's utility (higher is better); candidates are listed best first. */
  readonly utility: number;
  /**
   * Input tokens the expected cost assumed served from this model's prompt cache (the prefix it cached earlier in
   * the run); present when the router is cache-aware (option `cacheAware`).
   */
  readonly cachedTokens?: number;
  /**
   * Where the model's ability came from when it is not a row of the scorer: `published` (a cited benchmark result),
   * `terminal-bench` (the terminal-bench-2 table), `family-tier` (no data: the family and price-tier rule) or
   * `population` (no data, no price), with the source. Absent for the scorer's own models. See docs/catalog.md.
   */
  readonly prior?: { readonly method: string; readonly source: string };
}

/** One try of one model: the first is the chosen model, later ones are fallbacks. */
export interface AttemptRecord {
  readonly id: string;
  readonly ok: boolean;
  /** `Name: message` of the failure (first line), when `ok` is false. */
  readonly error?: string;
  /** Wall time of the try (time to first chunk when streaming). */
  readonly ms: number;
}

/**
 * Token usage of one answered call as the provider reported it (each adapter maps its framework's usage onto it:
 * LangChain's `usage_metadata`, the AI SDK's `usage`). `inputTokens` includes the cached tokens.
 */
export interface TokenUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number;
}

/** What an answered call cost, from the usage the provider reported (`source: "usage"`), else the estimate. */
export interface RealizedCostRecord {
  readonly costUsd: number;
  readonly source: "usage" | "estimate";
  /** Token counts as reported (see {@link TokenUsage}). */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/**
 * What the router decided for one call. Attached to every response as
 * `response_metadata.irtRouter` and to the child run's `metadata.irtRouter` (plus tags).
 */
export interface RouteDecision {
  readonly decisionId: string;
  /** Agent run the call belonged to, when known (see docs/langchain.md, "Feedback"). */
  readonly runId?: string;
  /** The model that answered (the last successful attempt), or the first choice while none has. */
  chosen: string;
  /** The policy, in short form, e.g. `cost-aware(lambda=20)`. */
  readonly policy: string;
  /** Every eligible candidate, best first. */
  readonly candidates: readonly CandidateRecord[];
  /**
   * Models filtered out before scoring, with the reason: no tool calling while tools are bound, no structured
   * output after `withStructuredOutput`, no `bindTools` under the agent middleware, context too small.
   */
  readonly excluded: readonly ExclusionRecord[];
  /** Time to embed the routing text (0 on a cache hit). */
  readonly encodeMs: number;
  /** Time to compute item parameters, score and rank the candidates. */
  readonly scoreMs: number;
  /** Whether the routing text's item parameters came from the cache. */
  readonly cacheHit: boolean;
  /** Estimated input tokens of the whole call. */
  readonly inputTokens: number;
  readonly attempts: AttemptRecord[];
  /** The call's task hint (`metadata.irtRouterTask`, or the router's `task` option), when given. */
  readonly task?: string;
  /** Present when the step failed visibly before and the router escalated (option `escalation`). */
  readonly escalated?: EscalationRecord;
  /** What the answered call cost (set when the call is settled; on a streamed reply, on the decision log's copy). */
  realized?: RealizedCostRecord;
  /** Shadow mode (option `shadow`): the fixed model served the call; `chosen` here is the router's own choice. */
  readonly shadow?: { readonly chosen: string };
}

/**
 * One line of a decision log (`decisionSink` option), in the form `irt-router report --decisions` reads: `model`
 * is the model that answered. In shadow mode (`shadow` option) `model` is the fixed model that served and `routed`
 * the router's own choice, with its p and expected cost in `routedP` / `routedExpectedCostUsd`.
 */
export interface DecisionRecord {
  readonly decisionId: string;
  /** ISO time the call settled. */
  readonly time: string;
  readonly runId?: string;
  /** The model that answered (else the first choice, when every model failed). */
  readonly model: string;
  /** The call's task hint, else "uncategorised" (the report's category). */
  readonly category: string;
  readonly policy: string;
  /** p and expected cost (before the call) of `model`. */
  readonly p: number;
  readonly expectedCostUsd: number;
  /** What the call cost: from the provider's reported usage (`costSource: "usage"`), else the estimate. */
  readonly realizedCostUsd?: number;
  readonly costSource?: "usage" | "estimate";
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  /** Whether a model answered. */
  readonly answered: boolean;
  /** The first choice, when another model answered after it failed. */
  readonly fallbackFrom?: string;
  /** Models tried, in order. */
  readonly tried: readonly string[];
  readonly routed?: string;
  readonly routedP?: number;
  readonly routedExpectedCostUsd?: number;
}

/** A JSON-safe copy of a decision (what goes into response metadata and traces). */
export function snapshot(decision: RouteDecision): RouteDecision {
  return {
    ...decision,
    candidates: decision.candidates.map((c) => ({ ...c })),
    excluded: decision.excluded.map((e) => ({ ...e })),
    attempts: decision.attempts.map((a) => ({ ...a })),
    ...(decision.realized ? { realized: { ...decision.realized } } : {}),
  };
}

/**
 * The decision the router attached to a reply (`response_metadata.irtRouter`), typed; undefined for a message the
 * router did not route (or a value that is no message).
 *
 * @example
 * ```ts
 * import { IrtRouter, routeDecisionOf } from "irt-router/langchain";
 * declare const router: IrtRouter;
 *
 * const reply = await router.invoke("What is 17 * 23?");
 * const decision = routeDecisionOf(reply);
 * if (decision) await router.feedback(decision.decisionId, reply.text.includes("391"));
 * ```
 */
export function routeDecisionOf(message: unknown): RouteDecision | undefined {
  const metadata = (message as { response_metadata?: unknown } | null | undefined)?.response_metadata;
  const decision = (metadata as { irtRouter?: unknown } | null | undefined)?.irtRouter;
  if (typeof decision !== "object" || decision === null) return undefined;
  const d = decision as Partial<RouteDecision>;
  return typeof d.decisionId === "string" && typeof d.chosen === "string" && Array.isArray(d.attempts)
    ? (decision as RouteDecision)
    : undefined;
}
