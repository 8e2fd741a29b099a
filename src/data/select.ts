import { ValidationError } from "../errors.js";
import { splitIndices } from "./split.js";
import type { CorrectnessDataset, Split } from "./types.js";

/**
 * The protocol's split of a dataset (rule of `../shared/BENCHMARK.md` with `D` = `ds.name`):
 * indices of the train, val and test items, in item order.
 *
 * @example
 * ```ts
 * const { train, val, test } = datasetSplits(ds);
 * ```
 */
export function datasetSplits(ds: CorrectnessDataset): Record<Split, number[]> {
  return splitIndices(
    ds.name,
    ds.items.map((item) => item.id),
  );
}

/**
 * A dataset restricted to the given items (in the given order), with the same models, prices and source.
 * Labels and costs are copied, so the result is independent of `ds`.
 *
 * @example
 * ```ts
 * const testSet = selectItems(ds, datasetSplits(ds).test);
 * ```
 */
export function selectItems(ds: CorrectnessDataset, indices: readonly number[]): CorrectnessDataset {
  const { offsets, model, y, cost } = ds.labels;
  indices.forEach((i, row) => {
    if (!Number.isInteger(i) || i < 0 || i >= ds.items.length)
      throw new ValidationError(
        `item index ${i} (position ${row}) is not an integer in [0, ${ds.items.length}) for dataset "${ds.name}"`,
        { path: `indices.${row}` },
      );
  });
  let total = 0;
  for (const i of indices) total += offsets[i + 1]! - offsets[i]!;
  const newOffsets = new Int32Array(indices.length + 1);
  const newModel = new Int32Array(total);
  const newY = new Float32Array(total);
  const newCost = cost ? new Float32Array(total) : undefined;
  let k = 0;
  indices.forEach((i, row) => {
    const start = offsets[i]!;
    const end = offsets[i + 1]!;
    newModel.set(model.subarray(start, end), k);
    newY.set(y.subarray(start, end), k);
    if (newCost && cost) newCost.set(cost.subarray(start, end), k);
    k += end - start;
    newOffsets[row + 1] = k;
  });
  return {
    ...ds,
    items: indices.map((i) => ds.items[i]!),
    labels: newCost
      ? { offsets: newOffsets, model: newModel, y: newY, cost: newCost }
      : { offsets: newOffsets, model: newModel, y: newY },
  };
}
