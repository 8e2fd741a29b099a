/**
 * The core's route engine over LangChain chat models: its types for the LangChain face, and the conversions of
 * LangChain's usage (`usage_metadata`) into the core's {@link TokenUsage}.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { RouteEngine } from "../../core/engine.js";
import type { FeedbackIdNames } from "../../core/feedback/id-names.js";
import type { TokenUsage } from "../../core/contracts/route-decision.js";
import type { RoutePlan } from "../../core/routing/route-plan.js";
import type { ModelSlot } from "../../core/routing/model-slots.js";
import { chatModelSpecs } from "./chat-model-slots.js";
import type { ParsedLangChainOptions } from "./options.js";

/** The route engine of a LangChain router (its slots hold chat models). */
export type ChatEngine = RouteEngine<BaseChatModel>;
/** One registered chat model. */
export type ChatSlot = ModelSlot<BaseChatModel>;
/** The plan of one call of a LangChain router. */
export type ChatPlan = RoutePlan<BaseChatModel>;

/** Where a LangChain caller finds the ids `feedback()` takes. */
const LANGCHAIN_FEEDBACK_IDS: FeedbackIdNames = {
  decisionId: "response_metadata.irtRouter.decisionId",
  runId: "the run id given as metadata.irtRouterRunId / by the middleware",
};

/** The route engine of the parsed LangChain options. */
export function chatEngine(options: ParsedLangChainOptions): ChatEngine {
  return new RouteEngine(options, chatModelSpecs(options), LANGCHAIN_FEEDBACK_IDS);
}

/** Token usage as a LangChain chat model reports it (`usage_metadata`). */
export type CallUsage = {
  input_tokens?: number;
  output_tokens?: number;
  input_token_details?: { cache_read?: number; cache_creation?: number };
};

/** LangChain's `usage_metadata` as the core's {@link TokenUsage} (`input_token_details.cache_read` / `cache_creation`). */
export function tokenUsage(usage: CallUsage | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const details = usage.input_token_details;
  const out: Record<string, number | undefined> = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: details?.cache_read,
    cacheWriteTokens: details?.cache_creation,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as TokenUsage;
}
