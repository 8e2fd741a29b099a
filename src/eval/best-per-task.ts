/**
 * The `best-per-task` reference row: for each category, the model with the highest train accuracy on that
 * category's train items, scored on the test items of the category. A strong, cheap baseline wherever items carry
 * a task label (the router's task hints aim to match it; see docs/online.md, "Task hints").
 */
import { bestSingleModel, singleModelScores } from "../stats/routing-scores.js";
import type { LabelMatrix } from "./types.js";

/** Per category: the index of its best train model; `fallback` (the best single model) for the others. */
export interface BestPerTask {
  readonly byTask: ReadonlyMap<string, number>;
  readonly fallback: number;
}

/** The given rows grouped by their category, in row order; rows without a category are left out. */
export function rowsByCategory(
  rows: readonly number[],
  categories: readonly (string | undefined)[],
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const i of rows) {
    const c = categories[i];
    if (c === undefined) continue;
    let group = out.get(c);
    if (!group) out.set(c, (group = []));
    group.push(i);
  }
  return out;
}

/**
 * The best model of each category on `trainRows` (highest mean observed label; ties to the lower index). A category
 * with no observed train label, and an item without a category, use the best single model.
 *
 * @example
 * ```ts
 * const best = bestPerTaskModels(labels, split.train, categories, nModels);
 * best.byTask.get("math"); // model index
 * ```
 */
export function bestPerTaskModels(
  labels: LabelMatrix,
  trainRows: readonly number[],
  categories: readonly (string | undefined)[],
  nModels: number,
): BestPerTask {
  const rowsOf = rowsByCategory(trainRows, categories);
  const byTask = new Map<string, number>();
  for (const [task, rows] of rowsOf) {
    const best = bestSingleModel(labels, rows, nModels);
    if (best >= 0) byTask.set(task, best);
  }
  return { byTask, fallback: bestSingleModel(labels, trainRows, nModels) };
}

/**
 * Per test row: the observed label of its category's best train model (NaN where that model is unobserved, so the
 * row is scored on the items it has, as `best-single` is). Undefined when no test item has a category.
 */
export function bestPerTaskScores(
  labels: LabelMatrix,
  trainRows: readonly number[],
  testRows: readonly number[],
  categories: readonly (string | undefined)[] | undefined,
  nModels: number,
): Float64Array | undefined {
  if (!categories || !testRows.some((i) => categories[i] !== undefined)) return undefined;
  const best = bestPerTaskModels(labels, trainRows, categories, nModels);
  const out = new Float64Array(testRows.length).fill(NaN);
  const byModel = new Map<number, Float64Array>();
  testRows.forEach((item, r) => {
    const c = categories[item];
    const m = (c !== undefined ? best.byTask.get(c) : undefined) ?? best.fallback;
    if (m < 0) return;
    let scores = byModel.get(m);
    if (!scores) byModel.set(m, (scores = singleModelScores(labels, testRows, m)));
    out[r] = scores[r]!;
  });
  return out;
}
