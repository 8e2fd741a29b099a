import type { ModelPrice } from "../data/types.js";
import { withCachedInputPrice } from "./cached-input.js";

/**
 * List prices (USD per 1M input / output tokens) of the RouterBench models, as RouterBench used them
 * to compute its recorded costs: API list prices for OpenAI and Anthropic, Together AI prices for the
 * open models. Source: withmartian/routerbench `routers/common.py` (TOKEN_COSTS) and Hu et al. 2024
 * (arXiv 2403.12031). Checked against the recorded costs in `cost_matrix_usd.csv.gz`; see
 * docs/cost-estimation.md. These are historical (late-2023) prices: pass your own `price` for live use.
 * `cachedInputPer1M` is each model's family default ({@link cachedInputRule}): none of these models had a
 * prompt-caching discount (GPT-4 Turbo and GPT-3.5 Turbo predate OpenAI's, Claude 1/2/Instant Anthropic's, and
 * Together AI listed none), so it equals the input price.
 */
export const ROUTERBENCH_PRICES: Readonly<Record<string, ModelPrice>> = withCachedInputPrices({
  "gpt-4-1106-preview": { inputPer1M: 10, outputPer1M: 30 },
  "gpt-3.5-turbo-1106": { inputPer1M: 1, outputPer1M: 2 },
  "claude-v1": { inputPer1M: 8, outputPer1M: 24 },
  "claude-v2": { inputPer1M: 8, outputPer1M: 24 },
  "claude-instant-v1": { inputPer1M: 0.8, outputPer1M: 2.4 },
  "meta/llama-2-70b-chat": { inputPer1M: 0.9, outputPer1M: 0.9 },
  "meta/code-llama-instruct-34b-chat": { inputPer1M: 0.776, outputPer1M: 0.776 },
  "mistralai/mixtral-8x7b-chat": { inputPer1M: 0.6, outputPer1M: 0.6 },
  "mistralai/mistral-7b-chat": { inputPer1M: 0.2, outputPer1M: 0.2 },
  "WizardLM/WizardLM-13B-V1.2": { inputPer1M: 0.3, outputPer1M: 0.3 },
  "zero-one-ai/Yi-34B-Chat": { inputPer1M: 0.8, outputPer1M: 0.8 },
});

/**
 * A frozen price table with each price's cached-input default filled in. The table is code, so it is checked by the
 * test suite (every price passes `modelPriceSchema`: test/policy/cost.test.ts), not parsed at every import.
 */
function withCachedInputPrices(table: Record<string, ModelPrice>): Readonly<Record<string, ModelPrice>> {
  const out: Record<string, ModelPrice> = {};
  for (const [id, price] of Object.entries(table)) out[id] = Object.freeze(withCachedInputPrice(id, price));
  return Object.freeze(out);
}

/**
 * The list price of a model, or undefined when the table has none. Matches the id exactly, then
 * case-insensitively, then by the part after the last `/` (so `mixtral-8x7b-chat` finds
 * `mistralai/mixtral-8x7b-chat`).
 *
 * @example
 * ```ts
 * listPrice("gpt-4-1106-preview"); // { inputPer1M: 10, outputPer1M: 30, cachedInputPer1M: 10 }
 * listPrice("my-own-model");       // undefined
 * ```
 */
export function listPrice(
  modelId: string,
  table: Readonly<Record<string, ModelPrice>> = ROUTERBENCH_PRICES,
): ModelPrice | undefined {
  if (Object.hasOwn(table, modelId)) return table[modelId];
  const lower = modelId.toLowerCase();
  const tail = (s: string) => s.slice(s.lastIndexOf("/") + 1);
  for (const [id, price] of Object.entries(table)) {
    if (id.toLowerCase() === lower) return price;
  }
  const matches = Object.entries(table).filter(([id]) => tail(id.toLowerCase()) === tail(lower));
  return matches.length === 1 ? matches[0]![1] : undefined;
}
