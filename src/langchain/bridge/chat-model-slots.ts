/**
 * LangChain chat models as the core's model slots: what a `BaseChatModel` can do (read from its `bindTools`,
 * `withStructuredOutput` and `profile` at each call), and the bound on a child's own retries (option
 * `childMaxRetries`).
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { describeError } from "../../core/contracts/error-text.js";
import type { CallNeeds, CapabilityRead, SlotSpec } from "../../core/routing/model-slots.js";
import type { ParsedLangChainOptions } from "./options.js";

/** LangChain's default `maxRetries` of a chat model's `caller` (`AsyncCaller`). */
export const LANGCHAIN_DEFAULT_MAX_RETRIES = 6;
/** Retries a child keeps by default (option `childMaxRetries`): one quick retry (1-2 s backoff), then the next model. */
export const DEFAULT_CHILD_MAX_RETRIES = 1;

/** The core's slot specs of the router's `models` option (child retries bounded as `childMaxRetries` says). */
export function chatModelSpecs(options: ParsedLangChainOptions): SlotSpec<BaseChatModel>[] {
  if (options.childMaxRetries !== false) {
    const retries = options.childMaxRetries ?? DEFAULT_CHILD_MAX_RETRIES;
    for (const entry of Object.values(options.models)) boundChildRetries(entry.model, retries);
  }
  return Object.entries(options.models).map(([id, entry]) => ({
    id,
    model: entry.model,
    price: entry.price,
    contextWindow: entry.contextWindow,
    expectedOutputTokens: entry.expectedOutputTokens,
    capabilities: (needs: CallNeeds) => chatModelCapabilities(entry.model, needs),
  }));
}

/**
 * Lowers a child's own retries to `retries` when it is left at LangChain's default (its `caller.maxRetries` is 6), so
 * the router's fallback is not delayed by about 1.5 minutes of backoff; a child with another value is left as it is.
 * A chat model that delegates to chat models it holds (ChatOpenAI calls its `completions` or `responses` model, each
 * with its own caller) has theirs lowered too.
 */
export function boundChildRetries(model: BaseChatModel, retries: number): void {
  const lower = (m: unknown) => {
    const caller = (m as { caller?: { maxRetries?: unknown } }).caller;
    if (caller && caller.maxRetries === LANGCHAIN_DEFAULT_MAX_RETRIES) caller.maxRetries = retries;
  };
  lower(model);
  for (const inner of Object.values(model)) if (inner instanceof BaseChatModel && inner !== model) lower(inner);
}

/** What a LangChain chat model can do for this call, or why it cannot serve it. */
export function chatModelCapabilities(chat: BaseChatModel, needs: CallNeeds): CapabilityRead {
  const model = chat as BaseChatModel & { profile?: { toolCalling?: boolean; maxInputTokens?: number } };
  const read = profileOf(model); // a provider's profile getter may throw (e.g. for a model name it does not know)
  if ("error" in read) return { excluded: `its profile could not be read (${read.error})` };
  const profile = read.profile as { toolCalling?: boolean; maxInputTokens?: number };
  const canBindTools = typeof model.bindTools === "function";
  if (needs.toolsBound && (!canBindTools || profile.toolCalling === false)) {
    return { excluded: "cannot call tools (no bindTools / profile.toolCalling is false) and tools are bound" };
  }
  if (needs.bindsTools && !canBindTools) {
    return { excluded: "has no bindTools(), which createAgent calls on every model it is given (also with no tools)" };
  }
  // LangChain's default withStructuredOutput is built on bindTools; a model that has neither its own nor bindTools would throw
  if (
    needs.structuredOutput &&
    !canBindTools &&
    model.withStructuredOutput === BaseChatModel.prototype.withStructuredOutput
  ) {
    return {
      excluded:
        "cannot give structured output (no bindTools, which LangChain's default withStructuredOutput needs, and no withStructuredOutput of its own)",
    };
  }
  return profile.maxInputTokens !== undefined ? { contextWindow: profile.maxInputTokens } : {};
}

/** A model's `profile`, or the error its getter threw (a provider's profile getter may throw for an unknown model). */
export function profileOf(model: unknown): { profile: Record<string, unknown> } | { error: string } {
  try {
    return { profile: ((model as { profile?: ModelProfile }).profile ?? {}) as Record<string, unknown> };
  } catch (error) {
    return { error: describeError(error) };
  }
}
