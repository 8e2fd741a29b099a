import { ValidationError } from "../errors.js";
import type { ModelPrice } from "../data/types.js";

/** What {@link stepCostUsd} needs: the tokens of one call and the model's price. */
export interface StepCostInput {
  /** Every input token of the call (system prompt, tool schemas, history and the new message). */
  readonly contextTokens: number;
  /**
   * How many of `contextTokens` the provider serves from its prompt cache (the prefix the same model saw in the
   * run's previous call, within the cache lifetime); billed at `price.cachedInputPer1M`. Default 0.
   */
  readonly cachedTokens?: number;
  /** Output tokens: observed after the call, or expected before it. */
  readonly outputTokens: number;
  /**
   * USD per 1M tokens. Without `cachedInputPer1M`, cached tokens cost the full input price: resolve the family
   * default first with `withCachedInputPrice(modelId, price)` when you want it.
   */
  readonly price: ModelPrice;
}

/**
 * USD cost of one call (one agent step):
 * `((contextTokens - cachedTokens) x inputPer1M + cachedTokens x cachedInputPer1M + outputTokens x outputPer1M) / 1e6`.
 * The one home of this rule: the router's expected cost, its recorded spend and the agent benchmark use it.
 *
 * @throws ValidationError naming the field when a count or price is negative or not finite, when `cachedTokens`
 * exceeds `contextTokens`, or when `cachedInputPer1M` exceeds `inputPer1M`.
 *
 * @example
 * ```ts
 * const price = { inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };
 * stepCostUsd({ contextTokens: 10_000, cachedTokens: 8_000, outputTokens: 200, price });
 * // (2,000 x 3 + 8,000 x 0.3 + 200 x 15) / 1e6 = 0.0114
 * ```
 */
export function stepCostUsd(input: StepCostInput): number {
  const { contextTokens, cachedTokens = 0, outputTokens, price } = input ?? ({} as StepCostInput);
  check(contextTokens, "contextTokens");
  check(cachedTokens, "cachedTokens");
  check(outputTokens, "outputTokens");
  checkPrice(price);
  if (cachedTokens > contextTokens) {
    throw new ValidationError(`cachedTokens (${cachedTokens}) cannot exceed contextTokens (${contextTokens}).`, {
      path: "cachedTokens",
    });
  }
  const cachedPrice = price.cachedInputPer1M ?? price.inputPer1M;
  return (
    ((contextTokens - cachedTokens) * price.inputPer1M +
      cachedTokens * cachedPrice +
      outputTokens * price.outputPer1M) /
    1e6
  );
}

/** What {@link expectedCostUsd} needs: token counts known (or estimated) before the call, and a price. */
export interface ExpectedCostInput {
  /** Prompt tokens (e.g. from `estimateTokens`). */
  readonly inputTokens: number;
  /** Tokens the model is expected to write (e.g. a per-model typical answer length). */
  readonly expectedOutputTokens: number;
  /** List price, USD per 1M input / output tokens. */
  readonly price: ModelPrice;
}

/**
 * Ex-ante USD cost of one call with nothing cached: {@link stepCostUsd} with `cachedTokens` 0, i.e.
 * inputTokens x inputPer1M / 1e6 + expectedOutputTokens x outputPer1M / 1e6.
 *
 * @throws ValidationError naming the field when a count or price is negative or not finite.
 *
 * @example
 * ```ts
 * expectedCostUsd({ inputTokens: 500, expectedOutputTokens: 100, price: { inputPer1M: 10, outputPer1M: 30 } });
 * // 0.008
 * ```
 */
export function expectedCostUsd(input: ExpectedCostInput): number {
  const { inputTokens, expectedOutputTokens, price } = input ?? ({} as ExpectedCostInput);
  check(inputTokens, "inputTokens");
  check(expectedOutputTokens, "expectedOutputTokens");
  return stepCostUsd({ contextTokens: inputTokens, outputTokens: expectedOutputTokens, price });
}

function checkPrice(price: ModelPrice): void {
  if (typeof price !== "object" || price === null) {
    throw new ValidationError("price must be { inputPer1M, outputPer1M } in USD per 1M tokens.", { path: "price" });
  }
  check(price.inputPer1M, "price.inputPer1M");
  check(price.outputPer1M, "price.outputPer1M");
  if (price.cachedInputPer1M !== undefined) {
    check(price.cachedInputPer1M, "price.cachedInputPer1M");
    if (price.cachedInputPer1M > price.inputPer1M) {
      throw new ValidationError(
        `price.cachedInputPer1M (${price.cachedInputPer1M}) cannot exceed price.inputPer1M (${price.inputPer1M}): ` +
          `it is the price of input served from the prompt cache.`,
        { path: "price.cachedInputPer1M" },
      );
    }
  }
}

function check(value: unknown, path: string): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ValidationError(`${path} must be a finite number >= 0, got ${String(value)}.`, { path });
  }
}
