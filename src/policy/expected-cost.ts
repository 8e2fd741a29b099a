import { ValidationError } from "../errors.js";
import type { ModelPrice } from "../data/types.js";

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
 * Ex-ante USD cost of one call: inputTokens x inputPer1M / 1e6 + expectedOutputTokens x outputPer1M / 1e6.
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
  if (typeof price !== "object" || price === null) {
    throw new ValidationError("price must be { inputPer1M, outputPer1M } in USD per 1M tokens.", { path: "price" });
  }
  check(price.inputPer1M, "price.inputPer1M");
  check(price.outputPer1M, "price.outputPer1M");
  return (inputTokens * price.inputPer1M + expectedOutputTokens * price.outputPer1M) / 1e6;
}

function check(value: unknown, path: string): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ValidationError(`${path} must be a finite number >= 0, got ${String(value)}.`, { path });
  }
}
