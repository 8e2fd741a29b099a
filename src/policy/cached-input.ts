/**
 * What a provider bills for input tokens it serves from its prompt cache: the default share of the input price per
 * model family, and the price with it filled in. Sources and the table of listed models: docs/cost-estimation.md,
 * "Cached input".
 */
import type { ModelPrice } from "../data/types.js";

/** How long a cached prefix is assumed to live after its last use (Anthropic's default TTL; OpenAI's is 5-10 min). */
export const DEFAULT_CACHE_LIFETIME_MS = 5 * 60_000;

/** The cached-input rule that applies to a model: the share of the input price a cached token costs, and why. */
export interface CachedInputRule {
  /** Cached-input price / input price: 0.1 means cached tokens cost 10% of the input price; 1 means no discount. */
  readonly share: number;
  /** The family the rule is for, e.g. `"Anthropic Claude 3 and later"`. */
  readonly family: string;
  /** Where the figure comes from. */
  readonly source: string;
}

const ANTHROPIC = "Anthropic prompt caching: cache reads at 0.1x the base input price (anthropic.com/pricing)";
const OPENAI = "OpenAI prompt caching (platform.openai.com/docs/guides/prompt-caching; openai.com/api/pricing)";

/** Tested in order on the lower-cased id after its last `/`; the first match applies. */
const RULES: readonly (CachedInputRule & { readonly pattern: RegExp })[] = [
  // Claude 1, 2 and Instant were retired before Anthropic introduced prompt caching (August 2024, Claude 3 family).
  {
    pattern: /^claude-(v?1|v?2|instant)/,
    share: 1,
    family: "Anthropic Claude 1, 2, Instant (no prompt caching)",
    source: ANTHROPIC,
  },
  { pattern: /^claude-/, share: 0.1, family: "Anthropic Claude 3 and later", source: ANTHROPIC },
  { pattern: /^gpt-5/, share: 0.1, family: "OpenAI GPT-5 family", source: `${OPENAI}: GPT-5 cached input at 10%` },
  {
    pattern: /^(gpt-4\.1|o3(?!-mini)|o4-mini)/,
    share: 0.25,
    family: "OpenAI GPT-4.1, o3, o4-mini",
    source: `${OPENAI}: 25%`,
  },
  // The first gpt-4o snapshot (2024-05-13) and chatgpt-4o-latest were left out of prompt caching.
  { pattern: /^gpt-4o-2024-05-13/, share: 1, family: "OpenAI gpt-4o-2024-05-13 (no prompt caching)", source: OPENAI },
  { pattern: /^(gpt-4o|o1|o3-mini)/, share: 0.5, family: "OpenAI GPT-4o, o1, o3-mini", source: `${OPENAI}: 50%` },
  {
    pattern: /^(gpt-4|gpt-3\.5)/,
    share: 1,
    family: "OpenAI GPT-4, GPT-4 Turbo, GPT-3.5 Turbo (no prompt caching)",
    source: OPENAI,
  },
];

const NONE: CachedInputRule = {
  share: 1,
  family: "no prompt-caching discount known (e.g. Mixtral, Llama on most hosts)",
  source: "none: give cachedInputPer1M if your provider discounts cached input",
};

/**
 * The default cached-input rule of a model id: Claude 3 and later 10% of the input price; OpenAI GPT-4o, o1 and
 * o3-mini 50%, GPT-4.1, o3 and o4-mini 25%, GPT-5 10%; older OpenAI and Anthropic models and every other family
 * no discount (share 1). A price's own `cachedInputPer1M` always wins over this rule.
 *
 * @example
 * ```ts
 * cachedInputRule("claude-3-5-sonnet-20241022").share; // 0.1
 * cachedInputRule("openai/gpt-4o-mini").share;          // 0.5
 * cachedInputRule("gpt-4-1106-preview").share;          // 1 (no prompt caching)
 * ```
 */
export function cachedInputRule(modelId: string): CachedInputRule {
  const id = modelId.slice(modelId.lastIndexOf("/") + 1).toLowerCase();
  const rule = RULES.find((r) => r.pattern.test(id));
  return rule ? { share: rule.share, family: rule.family, source: rule.source } : NONE;
}

/**
 * `price` with `cachedInputPer1M` filled in from {@link cachedInputRule} when it has none (a price that gives one
 * keeps it). Undefined stays undefined.
 *
 * @example
 * ```ts
 * withCachedInputPrice("claude-3-haiku", { inputPer1M: 0.25, outputPer1M: 1.25 });
 * // { inputPer1M: 0.25, outputPer1M: 1.25, cachedInputPer1M: 0.025 }
 * withCachedInputPrice("my-model", { inputPer1M: 1, outputPer1M: 2, cachedInputPer1M: 0.3 }).cachedInputPer1M; // 0.3
 * ```
 */
export function withCachedInputPrice(modelId: string, price: ModelPrice): ModelPrice;
export function withCachedInputPrice(modelId: string, price: ModelPrice | undefined): ModelPrice | undefined;
export function withCachedInputPrice(modelId: string, price: ModelPrice | undefined): ModelPrice | undefined {
  if (price === undefined || price.cachedInputPer1M !== undefined) return price;
  return { ...price, cachedInputPer1M: price.inputPer1M * cachedInputRule(modelId).share };
}
