/**
 * Routing policies (quality, cost-aware, budget), their config schema, ranking of candidates, token and
 * expected-cost estimates and list prices (replaying policies over a dataset is evaluation code: src/eval).
 */
export type { PolicyConfig, Candidate, RankedCandidate, PolicyContext } from "./types.js";
export { policySchema, parsePolicy, costWeight, describePolicy } from "./schema.js";
export { rankCandidates, budgetLambda } from "./rank.js";
export { estimateTokens, TOKEN_HEURISTIC } from "./tokens.js";
export { expectedCostUsd, stepCostUsd, type ExpectedCostInput, type StepCostInput } from "./expected-cost.js";
export {
  cachedInputRule,
  withCachedInputPrice,
  DEFAULT_CACHE_LIFETIME_MS,
  type CachedInputRule,
} from "./cached-input.js";
export { modelPriceSchema } from "./price-schema.js";
export { ROUTERBENCH_PRICES, listPrice } from "./prices.js";
export { knnOutputTokens, OutputTokenTracker, type KnnOutputTokensInput } from "./output-tokens.js";
