/**
 * The OpenAI Agents entry point, `irt-router/openai-agents`: pinServerState (src/openai-agents/index.ts), for
 * `aisdk(createIrtRouterModel(...))` models in a `Runner` run. Needs `@openai/agents` (an optional peer) for its types
 * only.
 *
 * @packageDocumentation
 */
export * from "./src/openai-agents/index.js";
