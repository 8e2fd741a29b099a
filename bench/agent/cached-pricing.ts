/**
 * Prices of the agent-run replay with their cached-input part, and the bill of one call. The rule is the router's
 * (`stepCostUsd`, `cachedInputRule` in src/policy): the benchmark only chooses which family rule a dataset's model is
 * billed under.
 */
import type { ModelPrice } from "../../src/data/types.js";
import { cachedInputRule, stepCostUsd } from "../../src/policy/index.js";
import type { AgentPrice, CallPricing } from "./price-types.js";

/**
 * How the cached input of a dataset's models is priced:
 * - `"current"` (default): as each provider bills prompt caching today for its current models, since the datasets'
 *   models (GPT-4 Turbo, Claude 1/2/Instant, GPT-3.5 Turbo) predate it: OpenAI models under the rule of `gpt-4o`
 *   (50%), Anthropic models under the rule of Claude 3 and later (10%), every other family under its own rule (no
 *   discount on most hosts). A run then pays for switching away from a cached prefix, as it would today.
 * - `"historical"`: each model under its own id's rule (no listed RouterBench or RouteLLM model had prompt caching).
 */
export type CachedPricing = "current" | "historical";

/** The id whose cached-input rule a model is billed under (see {@link CachedPricing}). */
export function cachedRuleId(modelId: string, mode: CachedPricing): string {
  if (mode === "historical") return modelId;
  const id = modelId.slice(modelId.lastIndexOf("/") + 1).toLowerCase();
  if (/^(gpt-|o\d)/.test(id) || modelId.toLowerCase().startsWith("openai/")) return "gpt-4o";
  if (/^claude/.test(id) || modelId.toLowerCase().startsWith("anthropic/")) return "claude-3-5-sonnet";
  return modelId;
}

export function withCachedPrice(modelId: string, price: ModelPrice, mode: CachedPricing = "current"): AgentPrice {
  const cachedInputPer1M =
    price.cachedInputPer1M ?? price.inputPer1M * cachedInputRule(cachedRuleId(modelId, mode)).share;
  return { ...price, cachedInputPer1M };
}

/** The router's step cost: (input - cached) x input price + cached x cached-input price + output x output price. */
export const callCostUsd: CallPricing = (t, price) =>
  stepCostUsd({ contextTokens: t.inputTokens, cachedTokens: t.cachedTokens, outputTokens: t.outputTokens, price });
