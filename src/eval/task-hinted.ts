import { DEFAULT_TASK_OFFSET_SD, fitTaskOffset, type TaskOffset } from "../learning/task-offsets.js";
import { sigmoid } from "../util/maths.js";
import type { FittedMethod, RoutingMethod } from "./types.js";

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
  options: { name?: string; priorSd?: number } = {},
): RoutingMethod {
  const name = options.name ?? `${method.name}${TASK_HINTED_SUFFIX}`;
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
      // (model, category) -> logits and labels of the val calls
      const calls = new Map<string, { logits: number[]; ys: number[] }>();
      split.val.forEach((item, r) => {
        const c = categories[item];
        if (c === undefined) return;
        for (let k = data.offsets[item]!; k < data.offsets[item + 1]!; k++) {
          const m = data.model[k]!;
          const key = `${m}\u0000${c}`;
          let entry = calls.get(key);
          if (!entry) calls.set(key, (entry = { logits: [], ys: [] }));
          entry.logits.push(logit(valPred[r * nM + m]!));
          entry.ys.push(data.y[k]!);
        }
      });
      const sd = offsetSd([...calls.values()], options.priorSd ?? DEFAULT_TASK_OFFSET_SD);
      const offsets = new Map<string, TaskOffset>();
      for (const [key, { logits, ys }] of calls) offsets.set(key, fitTaskOffset(logits, ys, sd));
      return {
        description: `${fitted.description}; task offsets of ${offsets.size} (model, category) pairs fitted on val (prior sd ${sd.toFixed(3)})`,
        async predict(X, rows) {
          const p = Float32Array.from(await fitted.predict(X, rows));
          rows.forEach((item, r) => {
            const c = categories[item];
            if (c === undefined) return;
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

/** log(p / (1 - p)), with p kept inside (1e-6, 1 - 1e-6). */
function logit(p: number): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
}
