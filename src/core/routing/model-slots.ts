/**
 * The registered models as the router uses them (one {@link ModelSlot} per key of `models`), and what a call needs of
 * a model: a model that cannot serve a call is excluded before scoring, with the reason in the decision.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ModelPrice } from "../../data/types.js";
import { OutputTokenTracker } from "../../policy/output-tokens.js";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { describeError } from "../contracts/error-text.js";
import type { ParsedRouterOptions } from "../contracts/options.js";

export const DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;
/** How many observed calls the configured output-token guess is worth when output lengths are learned. */
export const DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT = 4;

/** One registered model, resolved. */
export interface ModelSlot {
  /** The key it was registered under. */
  readonly id: string;
  readonly model: BaseChatModel;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** Expected output tokens per call: the configured guess, updated from observed usage unless learning is off. */
  readonly outputTokens: OutputTokenTracker;
}

/** What a call needs of a model; a model that lacks it is excluded before scoring (see {@link exclusionReason}). */
export interface CallNeeds {
  /** At least one tool is bound: the model must be able to call tools. */
  readonly toolsBound: boolean;
  /**
   * The caller calls `bindTools()` on the model whatever the tool list: `createAgent` does on every step, even with
   * no tools, so under {@link irtRouterMiddleware} a model without `bindTools()` would only fail.
   */
  readonly bindsTools?: boolean;
  /** The call wants structured output (`withStructuredOutput` is replayed on the model). */
  readonly structuredOutput?: boolean;
}

/** The slots of the router's `models` option, in registration order. */
export function modelSlots(options: ParsedRouterOptions): ModelSlot[] {
  if (options.childMaxRetries !== false) {
    const retries = options.childMaxRetries ?? DEFAULT_CHILD_MAX_RETRIES;
    for (const entry of Object.values(options.models)) boundChildRetries(entry.model, retries);
  }
  const defaultOut = options.expectedOutputTokens ?? DEFAULT_EXPECTED_OUTPUT_TOKENS;
  const learn = options.learnOutputTokens;
  const learnWeight = typeof learn === "object" ? learn.weight : DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT;
  return Object.entries(options.models).map(([id, entry]) => ({
    id,
    model: entry.model,
    price: entry.price,
    contextWindow: entry.contextWindow,
    outputTokens: new OutputTokenTracker(entry.expectedOutputTokens ?? defaultOut, learnWeight),
  }));
}

/** LangChain's default `maxRetries` of a chat model's `caller` (`AsyncCaller`). */
export const LANGCHAIN_DEFAULT_MAX_RETRIES = 6;
/** Retries a child keeps by default (option `childMaxRetries`): one quick retry (1-2 s backoff), then the next model. */
export const DEFAULT_CHILD_MAX_RETRIES = 1;

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

/** Why a model cannot serve this call, or undefined when it can. */
export function exclusionReason(slot: ModelSlot, needs: CallNeeds, inputTokens: number): string | undefined {
  const model = slot.model as BaseChatModel & { profile?: { toolCalling?: boolean; maxInputTokens?: number } };
  const read = profileOf(model); // a provider's profile getter may throw (e.g. for a model name it does not know)
  if ("error" in read) return `its profile could not be read (${read.error})`;
  const profile = read.profile as { toolCalling?: boolean; maxInputTokens?: number };
  const canBindTools = typeof model.bindTools === "function";
  if (needs.toolsBound && (!canBindTools || profile.toolCalling === false)) {
    return "cannot call tools (no bindTools / profile.toolCalling is false) and tools are bound";
  }
  if (needs.bindsTools && !canBindTools) {
    return "has no bindTools(), which createAgent calls on every model it is given (also with no tools)";
  }
  // LangChain's default withStructuredOutput is built on bindTools; a model that has neither its own nor bindTools would throw
  if (
    needs.structuredOutput &&
    !canBindTools &&
    model.withStructuredOutput === BaseChatModel.prototype.withStructuredOutput
  ) {
    return "cannot give structured output (no bindTools, which LangChain's default withStructuredOutput needs, and no withStructuredOutput of its own)";
  }
  const window = slot.contextWindow ?? profile.maxInputTokens;
  if (window !== undefined && inputTokens > window) {
    return `input is ~${inputTokens} tokens, over its context window of ${window}`;
  }
  return undefined;
}

/** A model's `profile`, or the error its getter threw (a provider's profile getter may throw for an unknown model). */
export function profileOf(model: unknown): { profile: Record<string, unknown> } | { error: string } {
  try {
    return { profile: ((model as { profile?: ModelProfile }).profile ?? {}) as Record<string, unknown> };
  } catch (error) {
    return { error: describeError(error) };
  }
}
