import type { CorrectnessDataset, ModelPrice } from "../../src/data/types.js";
import { listPrice } from "../../src/policy/prices.js";
import { estimateTokens } from "../../src/policy/tokens.js";

/** What the ex-ante cost estimate of `eval` needs: input tokens per item and a price per model. */
export interface CostInputs {
  readonly inputTokens: Float64Array;
  /** List price per model index (undefined: none known; that model falls back to its mean train cost). */
  readonly prices: (ModelPrice | undefined)[];
  /** How they were obtained, printed with the results. */
  readonly note: string;
}

/**
 * Input-token estimates of every item text (`estimateTokens`, known before the call) and the list
 * price of every model: the dataset's own price table (your-own-data `models.csv`) first, else the
 * project's list-price table (`listPrice`, RouterBench models).
 */
export function expectedCostInputs(ds: CorrectnessDataset): CostInputs {
  const inputTokens = Float64Array.from(ds.items, (it) => estimateTokens(it.text));
  const prices = ds.models.map((m) => ds.prices?.[m] ?? listPrice(m));
  const priced = prices.filter(Boolean).length;
  return {
    inputTokens,
    prices,
    note: `input tokens from estimateTokens(item text); list prices for ${priced} of ${ds.models.length} models`,
  };
}
