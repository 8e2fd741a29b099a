/**
 * The LangChain entry point, `irt-router/langchain`: IrtRouter, irtRouterMiddleware and their helpers
 * (src/langchain/index.ts), with the default scorer that `new IrtRouter({ models })` loads when it is given none
 * (adapters/default-scorer.ts), as the package root wires it. Needs `@langchain/core` (an optional peer).
 *
 * @packageDocumentation
 */
import { loadDefaultScorer } from "./adapters/default-scorer.js";
import { registerDefaultScorerLoader } from "./src/core/contracts/default-scorer.js";

registerDefaultScorerLoader(loadDefaultScorer);

export * from "./src/langchain/index.js";
