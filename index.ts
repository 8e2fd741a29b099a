/**
 * The package root, `irt-router`: the library's public API (src/index.ts) and the composition of its defaults.
 * `src/` is pure and never imports `adapters/`; this file wires the one default that needs I/O, the pretrained
 * scorer that `new IrtRouter({ models })` loads when it is given no `scorer` (adapters/default-scorer.ts).
 *
 * @packageDocumentation
 */
import { loadDefaultScorer } from "./adapters/default-scorer.js";
import { registerDefaultScorerLoader } from "./src/core/contracts/default-scorer.js";

registerDefaultScorerLoader(loadDefaultScorer);

export * from "./src/index.js";
