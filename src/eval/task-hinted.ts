import { DEFAULT_TASK_OFFSET_SD, fitTaskOffset, type TaskOffset } from "../learning/task-offsets.js";
import { logit as clippedLogit, sigmoid } from "../util/maths.js";
import { modelAccuracies, routeByPrediction } from "../stats/routing-scores.js";
import { bestPerTaskModels, rowsByCategory } from "./best-per-task.js";
import type { EmbeddedLabelData, FittedMethod, PredictionBlock, RoutingMethod } from "./types.js";

/** log(p / (1 - p)), with p kept inside [1e-6, 1 - 1e-6]. */
const logit = (p: number) => clippedLogit(p, 1e-6);

/** Suffix of the row of a method that uses the items' categories as task hints. */
export const TASK_HINTED_SUFFIX = "+task";

/**
 * The same method with each item's category as its task hint, as the router uses a hint with a learner: each
 * (model, category) pair gets a logit offset, p = sigmoid(logit(p_method) + delta), fitted on the VAL items of the
 * category (maximum a posteriori under N(0, s^2), {@link fitTaskOffset}; the method itself was fitted on train, so
 * val shows what its predictions miss about a category). The prior sd s is estimated from all the pairs by EM, at
 * most `priorSd` (default 1), as the run-level router estimates its hint offsets' spread: when the categories do not
 * separate the models, s and every offset shrink towards 0 instead of each pair fitting its own val noise, which the
 * argmax over many models would otherwise pick up. Items without a category, and categories without val labels, keep
 * the method's p. Never sees test labels.
 *
 * @example
 * ```ts
 * const hinted = withTaskHints(irtMoeMethod(tf), dataset.categories!);
 * await evaluate(dataset, { methods: [irtMoeMethod(tf), hinted] }); // rows irt-moe and irt-moe+task
 * ```
 */
export function withTaskHints(
  method: RoutingMethod,
  categories: readonly (string | undefined)[],
  options: { name?: string; priorSd?: number; margin?: number } = {},
): RoutingMethod {
  const name = options.name ?? `${method.name}${TASK_HINTED_SUFFIX}`;
  const maxSd = options.priorSd ?? DEFAULT_TASK_OFFSET_SD;
  return {
    name,
    seeded: method.seeded,
    async fit(data, split, fitOptions) {
      if (categories.length !== data.nItems) {
        throw new RangeError(`withTaskHints: ${categories.length} categories for ${data.nItems} items`);
      }
      const fitted = await method.fit(data, split, fitOptions);
      const nM = data.nModels;
      const valPred = await fitted.predict(data.X, split.val);
      const valRows = split.val.map((_, r) => r);
      const { offsets, sd } = fitOffsets(data, split.val, valRows, valPred, categories, maxSd);
      const best = bestPerTaskModels(data, split.train, categories, nM);
      const hinted = crossFittedHintedScores(data, split.val, valPred, categories, maxSd);
      const useHints = chooseHintedCategories(data, split.val, hinted, categories, best.byTask, options.margin);
      const rates = categoryRates(data, split.train, categories, nM);
      return {
        description:
          `${fitted.description}; task offsets of ${offsets.size} (model, category) pairs fitted on val (prior sd ${sd.toFixed(3)}); ` +
          `hints kept in ${useHints.size} of ${best.byTask.size} categories, the category's best train model in the others`,
        async predict(X, rows) {
          const p = Float32Array.from(await fitted.predict(X, rows));
          rows.forEach((item, r) => {
            const c = categories[item];
            if (c === undefined) return;
            const b = best.byTask.get(c);
            if (b !== undefined && !useHints.has(c)) {
              writeCategoryRates(p, r * nM, rates.get(c)!, b, nM);
              return;
            }
            for (let m = 0; m < nM; m++) {
              const o = offsets.get(`${m}\u0000${c}`);
              if (o) p[r * nM + m] = sigmoid(logit(p[r * nM + m]!) + o.mean);
            }
          });
          return p;
        },
      };
    },
  };
}

/**
 * A method and its task-hinted row ({@link withTaskHints}) sharing one fit per seed, so the method is trained once
 * for both rows (the hinted row's train time is then only its offsets').
 *
 * @example
 * ```ts
 * const methods = taskHintedPair(irtMoeMethod(tf), dataset.categories!); // [irt-moe, irt-moe+task]
 * ```
 */
export function taskHintedPair(
  method: RoutingMethod,
  categories: readonly (string | undefined)[],
  options: { priorSd?: number } = {},
): [RoutingMethod, RoutingMethod] {
  const fits = new Map<number, Promise<FittedMethod>>();
  const shared: RoutingMethod = {
    name: method.name,
    seeded: method.seeded,
    fit(data, split, fitOptions) {
      let fit = fits.get(fitOptions.seed);
      if (!fit) fits.set(fitOptions.seed, (fit = method.fit(data, split, fitOptions)));
      return fit;
    },
  };
  return [shared, withTaskHints(shared, categories, options)];
}

/** Smallest prior sd of the offsets (an sd of 0 is not a prior fitTaskOffset takes; 0.001 logit moves no decision). */
const MIN_OFFSET_SD = 1e-3;

/**
 * The prior sd s of the task offsets, by EM over the pairs: fit every offset under N(0, s^2), then s^2 = the mean of
 * its posterior second moments (mean^2 + variance), from s = `maxSd` until it settles; at most `maxSd`.
 */
export function offsetSd(
  pairs: readonly { logits: ArrayLike<number>; ys: ArrayLike<number> }[],
  maxSd: number,
): number {
  if (pairs.length === 0) return maxSd;
  let sd = maxSd;
  for (let iter = 0; iter < 100; iter++) {
    let second = 0;
    for (const { logits, ys } of pairs) {
      const o = fitTaskOffset(logits, ys, sd);
      second += o.mean * o.mean + o.variance;
    }
    const next = Math.min(maxSd, Math.max(MIN_OFFSET_SD, Math.sqrt(second / pairs.length)));
    if (Math.abs(next - sd) < 1e-4) return next;
    sd = next;
  }
  return sd;
}

/** Folds of the val items in the cross-fitted choice between the hints and the category's best model. */
const CHOICE_FOLDS = 5;
/** Default margin of that choice, in standard errors of the paired difference (see {@link chooseHintedCategories}). */
export const DEFAULT_HINT_MARGIN = 1;

/**
 * The task offsets of every (model, category) pair seen on `items` (rows `rows` of `pred`), each the MAP under
 * N(0, s^2) with s estimated by EM ({@link offsetSd}, at most `maxSd`).
 */
function fitOffsets(
  data: EmbeddedLabelData,
  items: readonly number[],
  rows: readonly number[],
  pred: PredictionBlock,
  categories: readonly (string | undefined)[],
  maxSd: number,
): { offsets: Map<string, TaskOffset>; sd: number } {
  const nM = data.nModels;
  const calls = new Map<string, { logits: number[]; ys: number[] }>();
  for (const r of rows) {
    const item = items[r]!;
    const c = categories[item];
    if (c === undefined) continue;
    for (let k = data.offsets[item]!; k < data.offsets[item + 1]!; k++) {
      const m = data.model[k]!;
      const key = `${m}\u0000${c}`;
      let entry = calls.get(key);
      if (!entry) calls.set(key, (entry = { logits: [], ys: [] }));
      entry.logits.push(logit(pred[r * nM + m]!));
      entry.ys.push(data.y[k]!);
    }
  }
  const sd = offsetSd([...calls.values()], maxSd);
  const offsets = new Map<string, TaskOffset>();
  for (const [key, { logits, ys }] of calls) offsets.set(key, fitTaskOffset(logits, ys, sd));
  return { offsets, sd };
}

/**
 * Cross-fitted score of the hinted method on each val item: the val items are cut into 5 folds, and each fold is
 * routed with the offsets fitted on the other four (so no item is scored by offsets fitted on its own labels). NaN
 * where the item has no observed model.
 */
export function crossFittedHintedScores(
  data: EmbeddedLabelData,
  val: readonly number[],
  valPred: PredictionBlock,
  categories: readonly (string | undefined)[],
  maxSd: number,
): Float64Array {
  const nM = data.nModels;
  const score = new Float64Array(val.length).fill(NaN);
  for (let f = 0; f < CHOICE_FOLDS; f++) {
    const fitRows = val.map((_, r) => r).filter((r) => r % CHOICE_FOLDS !== f);
    const heldOut = val.map((_, r) => r).filter((r) => r % CHOICE_FOLDS === f);
    const { offsets } = fitOffsets(data, val, fitRows, valPred, categories, maxSd);
    const p = new Float32Array(heldOut.length * nM);
    heldOut.forEach((r, h) => {
      const c = categories[val[r]!];
      for (let m = 0; m < nM; m++) {
        const o = c === undefined ? undefined : offsets.get(`${m}\u0000${c}`);
        p[h * nM + m] = o ? sigmoid(logit(valPred[r * nM + m]!) + o.mean) : valPred[r * nM + m]!;
      }
    });
    const routed = routeByPrediction(
      data,
      heldOut.map((r) => val[r]!),
      p,
      nM,
    ).score;
    heldOut.forEach((r, h) => (score[r] = routed[h]!));
  }
  return score;
}

/**
 * The categories where the task hints are kept: per category, on its val items where both are observed, the paired
 * difference d_i = (hinted method right) - (the category's best train model right), with the hinted score
 * cross-fitted ({@link crossFittedHintedScores}). The hints are kept only when sum(d) > margin * sqrt(sum(d^2)),
 * i.e. they beat the best model by more than `margin` standard errors of the sum (default 1); with thin or even
 * evidence the category goes to its best model, the `best-per-task` choice, so the row is never below it beyond
 * noise. A category without val evidence goes to its best model too; a margin of -Infinity keeps every category's hints.
 *
 * @example
 * ```ts
 * const kept = chooseHintedCategories(data, split.val, hintedScores, categories, best.byTask); // Set { "code" }
 * ```
 */
export function chooseHintedCategories(
  labels: EmbeddedLabelData,
  val: readonly number[],
  hintedScores: ArrayLike<number>,
  categories: readonly (string | undefined)[],
  bestByTask: ReadonlyMap<string, number>,
  margin: number = DEFAULT_HINT_MARGIN,
): Set<string> {
  const sum = new Map<string, { d: number; d2: number }>();
  val.forEach((item, r) => {
    const c = categories[item];
    const b = c === undefined ? undefined : bestByTask.get(c);
    if (b === undefined || !Number.isFinite(hintedScores[r]!)) return;
    for (let k = labels.offsets[item]!; k < labels.offsets[item + 1]!; k++) {
      if (labels.model[k] !== b) continue;
      const d = hintedScores[r]! - labels.y[k]!;
      const acc = sum.get(c!) ?? { d: 0, d2: 0 };
      sum.set(c!, { d: acc.d + d, d2: acc.d2 + d * d });
    }
  });
  const kept = new Set<string>();
  for (const [c, { d, d2 }] of sum) if (margin === -Infinity || d > margin * Math.sqrt(d2)) kept.add(c);
  return kept;
}

/** Per category: each model's train accuracy on it (NaN where unobserved), the p of a category routed to its best. */
function categoryRates(
  labels: EmbeddedLabelData,
  train: readonly number[],
  categories: readonly (string | undefined)[],
  nModels: number,
): Map<string, { rates: Float64Array; overall: Float64Array }> {
  const rowsOf = rowsByCategory(train, categories);
  const overall = modelAccuracies(labels, train, nModels);
  const out = new Map<string, { rates: Float64Array; overall: Float64Array }>();
  for (const [c, rows] of rowsOf) out.set(c, { rates: modelAccuracies(labels, rows, nModels), overall });
  return out;
}

/**
 * Writes a category's train accuracies as the p of one item (so it routes to `best`, the category's best train
 * model, as best-per-task does); a model unobserved on the category gets its overall train accuracy, kept below
 * the best model's.
 */
function writeCategoryRates(
  p: Float32Array,
  at: number,
  { rates, overall }: { rates: Float64Array; overall: Float64Array },
  best: number,
  nModels: number,
): void {
  const top = rates[best]!;
  for (let m = 0; m < nModels; m++) {
    const r = rates[m]!;
    p[at + m] = Number.isFinite(r) ? r : Math.min(Number.isFinite(overall[m]!) ? overall[m]! : 0, top) * 0.999;
  }
}
