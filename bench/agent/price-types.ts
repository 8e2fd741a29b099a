/**
 * Prices of the agent-run replay: each model's list price with its cached-input price, and the cost of one call
 * whose input starts with a prefix the provider has cached.
 */
import type { ModelPrice } from "../../src/data/types.js";

/** USD per 1M tokens: input, output, and input read from the provider's prompt cache. */
export interface AgentPrice extends ModelPrice {
  readonly cachedInputPer1M: number;
}

/** What one call bills: its input tokens, the part of them read from the cache, and its output tokens. */
export interface CallTokens {
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly outputTokens: number;
}

/** The pricing rule of one call (one home for it: the router's, see agent.ts). */
export type CallPricing = (tokens: CallTokens, price: AgentPrice) => number;
