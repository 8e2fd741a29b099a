import type { ModelPrice } from "../data/types.js";
import { expectedCostUsd } from "../policy/expected-cost.js";
import type { CostLabelMatrix } from "./cost.js";

/** How the ex-ante cost of one model was estimated. */
export interface ModelCostEstimate {
  /**
   * "list-price": input tokens x input price + expected output tokens x output price. "train-mean": the model's mean
   * recorded train cost (no list price, or one with no output price to learn output tokens with). "none": no estimate
   * (no train call of the model has a recorded cost); its expected cost is NaN.
   */
  readonly method: "list-price" | "train-mean" | "none";
  /** Why the list price was not used ("train-mean" and "none"), e.g. "no list price". */
  readonly reason?: string;
  /** Expected output tokens (list-price method), from the train split's recorded costs. */
  readonly expectedOutputTokens?: number;
  /** Mean recorded train cost (train-mean method). */
  readonly meanTrainCost?: number;
  /** Train calls of the model with a recorded cost (what the estimate is made from). */
  readonly trainCalls: number;
  /** Train calls of the model without a recorded cost (blank cost_usd): they cannot inform the estimate. */
  readonly unknownTrainCost: number;
}

/** Ex-ante cost estimates for every (item, model) cell, with how each model's was made. */
export interface ExpectedCostMatrix {
  /** `nItems x nModels`, row-major, USD. */
  readonly cost: Float64Array;
  readonly perModel: readonly ModelCostEstimate[];
}

/**
 * Ex-ante expected cost of every (item, model) call, decided BEFORE the call:
 * `inputTokens(q) x inPrice_m + E[outTokens_m] x outPrice_m`. `E[outTokens_m]` is learned from
 * the TRAIN split only: mean over its observed calls of (recorded cost - input part) / output price,
 * floored at 0. A model without a list price falls back to its mean recorded train cost (said in
 * `perModel`). The recorded costs of val/test calls are never looked at. Train calls without a recorded cost
 * cannot inform the estimate; `perModel` counts them (`unknownTrainCost`) beside the calls used (`trainCalls`).
 * A model none of whose train calls has a recorded cost has no estimate (method "none", NaN, and `reason`): with a
 * list price its expected output tokens cannot be learned, without one there is no mean.
 *
 * @example
 * ```ts
 * const est = estimateExpectedCosts(labels, split.train, inputTokens, prices, nModels);
 * const cost = est.cost[item * nModels + m];
 * ```
 */
export function estimateExpectedCosts(
  labels: CostLabelMatrix,
  trainRows: readonly number[],
  inputTokens: ArrayLike<number>,
  prices: readonly (ModelPrice | undefined)[],
  nModels: number,
): ExpectedCostMatrix {
  const outSum = new Float64Array(nModels);
  const costSum = new Float64Array(nModels);
  const count = new Float64Array(nModels);
  const unknown = new Float64Array(nModels);
  for (const item of trainRows) {
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      const m = labels.model[e]!;
      const c = labels.cost[e]!;
      if (!Number.isFinite(c)) {
        unknown[m]!++;
        continue;
      }
      count[m]!++;
      costSum[m]! += c;
      const price = prices[m];
      if (price && price.outputPer1M > 0) {
        const inputPart = (inputTokens[item]! * price.inputPer1M) / 1e6;
        outSum[m]! += (Math.max(0, c - inputPart) * 1e6) / price.outputPer1M;
      }
    }
  }
  const perModel: ModelCostEstimate[] = [];
  for (let m = 0; m < nModels; m++) {
    const price = prices[m];
    const calls = { trainCalls: count[m]!, unknownTrainCost: unknown[m]! };
    if (count[m]! === 0) {
      const reason = price
        ? "a list price, but no train call with a recorded cost to learn its expected output tokens from"
        : "no list price and no train call with a recorded cost";
      perModel.push({ method: "none", reason, ...calls });
    } else if (price && price.outputPer1M > 0) {
      perModel.push({ method: "list-price", expectedOutputTokens: outSum[m]! / count[m]!, ...calls });
    } else {
      const reason = price ? "its list price has no output price to learn output tokens with" : "no list price";
      perModel.push({ method: "train-mean", reason, meanTrainCost: costSum[m]! / count[m]!, ...calls });
    }
  }
  const nItems = inputTokens.length;
  const cost = new Float64Array(nItems * nModels);
  for (let i = 0; i < nItems; i++) {
    for (let m = 0; m < nModels; m++) {
      const est = perModel[m]!;
      cost[i * nModels + m] =
        est.method === "list-price"
          ? expectedCostUsd({
              inputTokens: inputTokens[i]!,
              expectedOutputTokens: est.expectedOutputTokens!,
              price: prices[m]!,
            })
          : est.method === "train-mean"
            ? est.meanTrainCost!
            : NaN;
    }
  }
  return { cost, perModel };
}
