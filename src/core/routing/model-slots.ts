/**
 * The registered models as the router uses them (one {@link ModelSlot} per registered model), and what a call needs
 * of a model: a model that cannot serve a call is excluded before scoring, with the reason in the decision.
 */
import type { ModelPrice } from "../../data/types.js";
import { OutputTokenTracker } from "../../policy/output-tokens.js";
import type { ModelCapabilities } from "../contracts/options.js";

export const DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;
/** How many observed calls the configured output-token guess is worth when output lengths are learned. */
export const DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT = 4;

/**
 * A model's capabilities for one call as its adapter reads them, or why it cannot serve the call by the adapter's own
 * rule (e.g. a LangChain model without `bindTools`, or whose profile getter throws).
 */
export type CapabilityRead = ModelCapabilities | { readonly excluded: string };

/** One registered model, resolved. `M` is the adapter's model object (opaque to the core). */
export interface ModelSlot<M = unknown> {
  /** The key it was registered under. */
  readonly id: string;
  /** The adapter's model (a LangChain chat model, an AI SDK model, ...); the core never reads it. */
  readonly model: M;
  readonly price?: ModelPrice;
  /** Input context window in tokens (configured; wins over the one {@link capabilities} reads). */
  readonly contextWindow?: number;
  /** Expected output tokens per call: the configured guess, updated from observed usage unless learning is off. */
  readonly outputTokens: OutputTokenTracker;
  /** The model's capabilities, read at each call. */
  readonly capabilities: (needs: CallNeeds) => CapabilityRead;
}

/** One model as an adapter registers it with the core (see {@link modelSlots}). */
export interface SlotSpec<M = unknown> {
  readonly id: string;
  readonly model: M;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  readonly expectedOutputTokens?: number;
  readonly capabilities: (needs: CallNeeds) => CapabilityRead;
}

/** What a call needs of a model; a model that lacks it is excluded before scoring (see {@link exclusionReason}). */
export interface CallNeeds {
  /** At least one tool is bound: the model must be able to call tools. */
  readonly toolsBound: boolean;
  /**
   * The caller binds tools on the model whatever the tool list: LangChain's `createAgent` calls `bindTools()` on every
   * step, even with no tools, so under `irtRouterMiddleware` a model without `bindTools()` would only fail.
   */
  readonly bindsTools?: boolean;
  /** The call wants structured output. */
  readonly structuredOutput?: boolean;
}

/** How the output-token estimates are set up (router options `expectedOutputTokens` and `learnOutputTokens`). */
export interface OutputTokenOptions {
  readonly expectedOutputTokens?: number;
  readonly learnOutputTokens?: boolean | { readonly weight: number };
}

/** The slots of the registered models, in registration order. */
export function modelSlots<M>(specs: readonly SlotSpec<M>[], options: OutputTokenOptions): ModelSlot<M>[] {
  const defaultOut = options.expectedOutputTokens ?? DEFAULT_EXPECTED_OUTPUT_TOKENS;
  const learn = options.learnOutputTokens;
  const learnWeight = typeof learn === "object" ? learn.weight : DEFAULT_OUTPUT_TOKENS_PRIOR_WEIGHT;
  return specs.map((spec) => ({
    id: spec.id,
    model: spec.model,
    price: spec.price,
    contextWindow: spec.contextWindow,
    outputTokens: new OutputTokenTracker(spec.expectedOutputTokens ?? defaultOut, learnWeight),
    capabilities: spec.capabilities,
  }));
}

/** Why a model cannot serve this call, or undefined when it can. */
export function exclusionReason(slot: ModelSlot, needs: CallNeeds, inputTokens: number): string | undefined {
  const read = slot.capabilities(needs);
  if ("excluded" in read) return read.excluded;
  if (needs.toolsBound && read.tools === false) return "cannot call tools and tools are bound";
  if (needs.structuredOutput && read.structuredOutput === false) return "cannot give structured output";
  const window = slot.contextWindow ?? read.contextWindow;
  if (window !== undefined && inputTokens > window) {
    return `input is ~${inputTokens} tokens, over its context window of ${window}`;
  }
  return undefined;
}
