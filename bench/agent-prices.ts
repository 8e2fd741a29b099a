/**
 * Cached-input prices of the agent-run replay. Temporary home until the router's price table carries
 * `cachedInputPer1M`; then this module defers to it.
 */
import type { ModelPrice } from "../src/data/types.js";
import type { AgentPrice, CallPricing } from "./agent-pricing.js";

/** Cached input as a fraction of the input price: Anthropic 10%, OpenAI 50%, others (no prompt cache) 100%. */
export function cachedInputShare(modelId: string): number {
  const id = modelId.toLowerCase();
  if (id.includes("claude") || id.startsWith("anthropic/")) return 0.1;
  if (id.includes("gpt-") || id.startsWith("openai/")) return 0.5;
  return 1;
}

export function withCachedPrice(modelId: string, price: ModelPrice & { cachedInputPer1M?: number }): AgentPrice {
  return { ...price, cachedInputPer1M: price.cachedInputPer1M ?? price.inputPer1M * cachedInputShare(modelId) };
}

/** (input - cached) x input price + cached x cached-input price + output x output price. */
export const callCostUsd: CallPricing = (t, p) =>
  ((t.inputTokens - t.cachedTokens) * p.inputPer1M + t.cachedTokens * p.cachedInputPer1M + t.outputTokens * p.outputPer1M) / 1e6;
