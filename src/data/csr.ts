import { ValidationError } from "../errors.js";
import type { CorrectnessDataset } from "./types.js";

/** One observed (item, model) cell. */
export interface Observation {
  /** Model index into `dataset.models`. */
  readonly model: number;
  /** Correctness in [0, 1]. */
  readonly y: number;
  /** Recorded USD cost, NaN if unknown; undefined when the dataset has no cost. */
  readonly cost?: number;
}

/**
 * Builds CSR labels row by row: call {@link CsrBuilder.add} for the observations of item 0, then
 * {@link CsrBuilder.endItem}, then item 1, ... Unobserved cells are simply never added.
 *
 * @example
 * ```ts
 * const b = new CsrBuilder(false);
 * b.add(0, 1); b.add(2, 0); b.endItem();   // item 0: model 0 right, model 2 wrong
 * b.endItem();                             // item 1: nothing observed
 * const labels = b.build();                // offsets [0, 2, 2]
 * ```
 */
export class CsrBuilder {
  private offsets: number[] = [0];
  private models: number[] = [];
  private ys: number[] = [];
  private costs: number[] = [];

  /** @param withCost - whether a cost array is built (costs passed to `add` are then kept; missing = NaN). */
  constructor(private readonly withCost: boolean) {}

  add(model: number, y: number, cost = Number.NaN): void {
    if (!Number.isInteger(model) || model < 0)
      throw new ValidationError(`model index must be an integer >= 0, got ${model} (item ${this.offsets.length - 1})`, {
        path: `items.${this.offsets.length - 1}.model`,
      });
    this.models.push(model);
    this.ys.push(y);
    if (this.withCost) this.costs.push(cost);
  }

  endItem(): void {
    this.offsets.push(this.models.length);
  }

  build(): CorrectnessDataset["labels"] {
    // Entries of one item are kept sorted by model index, so lookups can binary-search.
    const offsets = Int32Array.from(this.offsets);
    const model = Int32Array.from(this.models);
    const y = Float32Array.from(this.ys);
    const cost = this.withCost ? Float32Array.from(this.costs) : undefined;
    for (let i = 0; i + 1 < offsets.length; i++) sortRow(offsets[i]!, offsets[i + 1]!, model, y, cost, i);
    return cost ? { offsets, model, y, cost } : { offsets, model, y };
  }
}

/**
 * Build CSR labels from (item, model, y[, cost]) triplets in any order: entries are grouped by item
 * (stable) and sorted by model within each item. A duplicate (item, model) pair or an index out of range
 * throws ValidationError.
 *
 * @example
 * ```ts
 * const labels = csrFromTriplets(2, [1, 0], [0, 3], [1, 0]); // item 0: model 3 -> 0; item 1: model 0 -> 1
 * ```
 */
export function csrFromTriplets(
  nItems: number,
  item: ArrayLike<number>,
  model: ArrayLike<number>,
  y: ArrayLike<number>,
  cost?: ArrayLike<number>,
): CorrectnessDataset["labels"] {
  const n = item.length;
  if (model.length !== n || y.length !== n || (cost && cost.length !== n))
    throw new ValidationError(
      `item, model, y${cost ? " and cost" : ""} must have the same length (${[item.length, model.length, y.length, ...(cost ? [cost.length] : [])].join(", ")})`,
      {
        path: model.length !== n ? "model" : y.length !== n ? "y" : "cost",
      },
    );
  for (let k = 0; k < n; k++) {
    const i = item[k]!;
    const m = model[k]!;
    if (!Number.isInteger(i) || i < 0 || i >= nItems)
      throw new ValidationError(`item index ${i} at entry ${k} is not an integer in [0, ${nItems})`, {
        path: `item.${k}`,
      });
    if (!Number.isInteger(m) || m < 0)
      throw new ValidationError(`model index ${m} at entry ${k} is not an integer >= 0`, { path: `model.${k}` });
  }
  const offsets = new Int32Array(nItems + 1);
  for (let k = 0; k < n; k++) offsets[item[k]! + 1]!++;
  for (let i = 0; i < nItems; i++) offsets[i + 1]! += offsets[i]!;
  const fill = offsets.slice(0, nItems);
  const outModel = new Int32Array(n);
  const outY = new Float32Array(n);
  const outCost = cost ? new Float32Array(n) : undefined;
  for (let k = 0; k < n; k++) {
    const at = fill[item[k]!]!++;
    outModel[at] = model[k]!;
    outY[at] = y[k]!;
    if (outCost && cost) outCost[at] = cost[k]!;
  }
  for (let i = 0; i < nItems; i++) sortRow(offsets[i]!, offsets[i + 1]!, outModel, outY, outCost, i);
  return outCost ? { offsets, model: outModel, y: outY, cost: outCost } : { offsets, model: outModel, y: outY };
}

function sortRow(
  start: number,
  end: number,
  model: Int32Array,
  y: Float32Array,
  cost: Float32Array | undefined,
  item: number,
): void {
  let sorted = true;
  for (let k = start + 1; k < end; k++) if (model[k - 1]! > model[k]!) sorted = false;
  if (!sorted) reorderRow(start, end, model, y, cost);
  // A duplicate (item, model) pair would be counted twice and make lookups ambiguous.
  for (let k = start + 1; k < end; k++)
    if (model[k - 1] === model[k])
      throw new ValidationError(
        `duplicate label for item ${item} and model ${model[k]}: keep one entry per (item, model)`,
        { path: `items.${item}`, details: { item, model: model[k] } },
      );
}

function reorderRow(start: number, end: number, model: Int32Array, y: Float32Array, cost?: Float32Array): void {
  const order = Array.from({ length: end - start }, (_, k) => start + k).sort((a, b) => model[a]! - model[b]!);
  const m = order.map((k) => model[k]!);
  const v = order.map((k) => y[k]!);
  const c = cost ? order.map((k) => cost[k]!) : undefined;
  for (let k = 0; k < order.length; k++) {
    model[start + k] = m[k]!;
    y[start + k] = v[k]!;
    if (cost && c) cost[start + k] = c[k]!;
  }
}

/**
 * The observations of item `item`, in model-index order.
 *
 * @example
 * ```ts
 * for (const { model, y } of observations(ds, 0)) console.log(ds.models[model], y);
 * ```
 */
export function observations(ds: CorrectnessDataset, item: number): Observation[] {
  const { offsets, model, y, cost } = ds.labels;
  const out: Observation[] = [];
  for (let k = offsets[item]!; k < offsets[item + 1]!; k++) {
    out.push(cost ? { model: model[k]!, y: y[k]!, cost: cost[k]! } : { model: model[k]!, y: y[k]! });
  }
  return out;
}

/**
 * The label of (item, model), or `undefined` when that cell is unobserved (never 0 for "unknown").
 *
 * @example
 * ```ts
 * const y = labelOf(ds, 0, ds.models.indexOf("gpt-4-1106-preview")); // 1, 0, a grade, or undefined
 * ```
 */
export function labelOf(ds: CorrectnessDataset, item: number, modelIndex: number): number | undefined {
  const k = entryIndex(ds, item, modelIndex);
  return k < 0 ? undefined : ds.labels.y[k];
}

/**
 * Recorded cost of (item, model); `undefined` when unobserved or the dataset has no cost; NaN when unknown.
 *
 * @example
 * ```ts
 * costOf(ds, 0, ds.models.indexOf("gpt-4-1106-preview")); // 0.00519
 * ```
 */
export function costOf(ds: CorrectnessDataset, item: number, modelIndex: number): number | undefined {
  if (!ds.labels.cost) return undefined;
  const k = entryIndex(ds, item, modelIndex);
  return k < 0 ? undefined : ds.labels.cost[k];
}

/**
 * Index into the CSR arrays of (item, model), or -1 when unobserved (binary search; rows are model-sorted).
 *
 * @example
 * ```ts
 * const k = entryIndex(ds, 3, 1);
 * if (k >= 0) console.log(ds.labels.y[k]);
 * ```
 */
export function entryIndex(ds: CorrectnessDataset, item: number, modelIndex: number): number {
  const { offsets, model } = ds.labels;
  let lo = offsets[item]!;
  let hi = offsets[item + 1]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = model[mid]!;
    if (m === modelIndex) return mid;
    if (m < modelIndex) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Per-model mean label and observation count over `items` (all items by default); NaN mean when unobserved.
 *
 * @example
 * ```ts
 * const best = modelMeans(ds, datasetSplits(ds).train).reduce((a, b) => (b.mean > a.mean ? b : a));
 * ```
 */
export function modelMeans(
  ds: CorrectnessDataset,
  items?: readonly number[],
): { model: string; mean: number; count: number }[] {
  const sum = new Float64Array(ds.models.length);
  const count = new Float64Array(ds.models.length);
  const { offsets, model, y } = ds.labels;
  const visit = (i: number): void => {
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
      sum[model[k]!]! += y[k]!;
      count[model[k]!]! += 1;
    }
  };
  if (items) items.forEach(visit);
  else for (let i = 0; i < ds.items.length; i++) visit(i);
  return ds.models.map((name, m) => ({
    model: name,
    mean: count[m]! > 0 ? sum[m]! / count[m]! : Number.NaN,
    count: count[m]!,
  }));
}

/**
 * Share of `items` (all by default) on which at least one observed model has label >= `threshold` (0.5).
 *
 * @example
 * ```ts
 * oracleRate(ds, datasetSplits(ds).test); // e.g. 0.94
 * ```
 */
export function oracleRate(ds: CorrectnessDataset, items?: readonly number[], threshold = 0.5): number {
  const { offsets, y } = ds.labels;
  const list = items ?? Array.from({ length: ds.items.length }, (_, i) => i);
  let hits = 0;
  for (const i of list) {
    for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
      if (y[k]! >= threshold) {
        hits++;
        break;
      }
    }
  }
  return list.length > 0 ? hits / list.length : Number.NaN;
}

/**
 * Number of observed cells per model (length `models.length`).
 *
 * @example
 * ```ts
 * observedCounts(ds)[ds.models.indexOf("DeepSeek-Coder-V2")]; // 10351 on mmlu-pro-29models
 * ```
 */
export function observedCounts(ds: CorrectnessDataset): Int32Array {
  const counts = new Int32Array(ds.models.length);
  for (const m of ds.labels.model) counts[m]!++;
  return counts;
}
