import type { CorrectnessDataset, ModelPrice } from "../../src/data/types.js";

/** What the ex-ante cost estimate of `eval` needs: input tokens per item and a price per model. */
export interface CostInputs {
  readonly inputTokens: Float64Array;
  /** List price per model index (undefined: none known; that model falls back to its mean train cost). */
  readonly prices: (ModelPrice | undefined)[];
  /** How they were obtained, printed with the results. */
  readonly note: string;
}

/**
 * Input-token estimates of every item text and list prices of every model (from the dataset's own
 * price table).
 */
export function expectedCostInputs(ds: CorrectnessDataset): CostInputs {
  const inputTokens = Float64Array.from(ds.items, (it) => Math.ceil(it.text.length / 4));
  const prices = ds.models.map((m) => ds.prices?.[m]);
  const priced = prices.filter(Boolean).length;
  return {
    inputTokens,
    prices,
    note: `input tokens ~ characters / 4 of the item text; list prices for ${priced} of ${ds.models.length} models`,
  };
}
