/**
 * `irt-router/openai-agents`: {@link pinServerState}, which keeps a `Runner` run with server-side state
 * (`previousResponseId`, `conversationId`) on one model when its model is `aisdk(createIrtRouterModel(...))`.
 * Needs `@openai/agents` (an optional peer) for its types only.
 */
export { pinServerState, type PinServerStateOptions } from "./server-state.js";
