/**
 * irt-router: route each step of a LangChain agent to the chat model most likely to get it right,
 * at the price you want to pay.
 *
 * @packageDocumentation
 */
export * from "./errors.js";
export * from "./encoders/index.js";
export * from "./data/index.js";
export * from "./scorer/index.js";
export * from "./policy/index.js";
export * from "./learning/index.js";
export * from "./langchain/index.js";
export * from "./eval/index.js";
export * from "./baselines/index.js";
