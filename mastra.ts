/**
 * The Mastra entry point, `irt-router/mastra`: IrtRouterProcessor (src/mastra/index.ts), with the default scorer the
 * router loads when it is given none (adapters/default-scorer.ts), as the package root wires it. Needs
 * `@mastra/core` (an optional peer; Node 22) for its types only.
 *
 * @packageDocumentation
 */
import { loadDefaultScorer } from "./adapters/default-scorer.js";
import { registerDefaultScorerLoader } from "./src/core/contracts/default-scorer.js";

registerDefaultScorerLoader(loadDefaultScorer);

export * from "./src/mastra/index.js";
