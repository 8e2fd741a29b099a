/**
 * The Vercel AI SDK entry point, `irt-router/ai-sdk`: createIrtRouterModel, irtPrepareStep and the feedback helpers
 * (src/ai-sdk/index.ts), with the default scorer the router loads when it is given none (adapters/default-scorer.ts),
 * as the package root wires it. Needs `ai` 6 / `@ai-sdk/provider` 3, or `ai` 7 / `@ai-sdk/provider` 4 (optional peers), for its types only.
 *
 * @packageDocumentation
 */
import { loadDefaultScorer } from "./adapters/default-scorer.js";
import { registerDefaultScorerLoader } from "./src/core/contracts/default-scorer.js";

registerDefaultScorerLoader(loadDefaultScorer);

export * from "./src/ai-sdk/index.js";
