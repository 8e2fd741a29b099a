/**
 * Checks of the harness's input (dataset shape, split, cost data, a method's predictions) and the count of calls
 * without cost data that decides whether the cost-aware figures can be computed.
 */
import { ValidationError } from "../errors.js";
import type { EvalDataset, EvalReport } from "./report.js";

/**
 * The observed calls without a recorded cost, per split (the one count of them: the report's `unknownCost` and
 * `costReference.unknownTrainCost`), and, in `notComputed`, why the dataset's cost data cannot give the cost-aware
 * figures (undefined when it can): every observed val and test call needs a recorded cost (the spend of a router that
 * picks one is otherwise unknown) and every model observed there an ex-ante estimate (the policy decides on it). Train
 * calls without a cost only narrow the estimate; they are counted.
 */
export function costGaps(ds: EvalDataset): {
  unknownCost: { train: number; val: number; test: number };
  notComputed?: EvalReport["costAwareNotComputed"];
} {
  const { data, split, models } = ds;
  const { recorded, expected } = ds.cost!;
  const nModels = data.nModels;
  const unknownCost = { train: 0, val: 0, test: 0 };
  const examples: string[] = [];
  const noEstimate = new Set<number>();
  let observed = 0;
  for (const part of ["train", "val", "test"] as const) {
    for (const item of split[part]) {
      for (let e = data.offsets[item]!; e < data.offsets[item + 1]!; e++) {
        const m = data.model[e]!;
        if (part !== "train") {
          observed++;
          if (!Number.isFinite(expected[item * nModels + m]!)) noEstimate.add(m);
        }
        if (Number.isFinite(recorded[e]!)) continue;
        unknownCost[part]++;
        if (part !== "train" && examples.length < 3)
          examples.push(`item "${ds.itemIds?.[item] ?? `#${item}`}" with model "${models[m]}"`);
      }
    }
  }
  const unknown = unknownCost.val + unknownCost.test;
  if (unknown === 0 && noEstimate.size === 0) return { unknownCost };
  const modelsWithoutEstimate = [...noEstimate].sort((a, b) => a - b).map((m) => models[m]!);
  const reasons: string[] = [];
  if (unknown > 0)
    reasons.push(
      `${unknown} of the ${observed} observed val and test calls have no recorded cost (val ${unknownCost.val}, test ${unknownCost.test}; e.g. ${examples.join(", ")}), ` +
        `so the spend of a router that chooses one is unknown`,
    );
  if (modelsWithoutEstimate.length > 0) {
    const why = (m: number) => ds.cost!.estimates?.[m]?.reason ?? "no finite expected cost was given";
    reasons.push(
      `there is no ex-ante cost estimate for ${[...noEstimate]
        .sort((a, b) => a - b)
        .map((m) => `"${models[m]}" (${why(m)})`)
        .join(", ")}, ` + `so the policy cannot weigh ${modelsWithoutEstimate.length === 1 ? "its" : "their"} cost`,
    );
  }
  return {
    unknownCost,
    notComputed: {
      reason:
        `Cost-aware figures not computed: ${reasons.join("; ")}. Give every call's cost (0 for a free one), and every model train calls ` +
        `with a recorded cost, to get them; the other figures do not use cost.`,
      unknownCost,
      modelsWithoutEstimate,
    },
  };
}

export function checkDataset(ds: EvalDataset): void {
  const { data, split, models } = ds;
  const fail = (path: string, message: string): never => {
    throw new ValidationError(`Invalid evaluation dataset: ${path} ${message}`, { path: `dataset.${path}` });
  };
  if (models.length !== data.nModels) fail("models", `has ${models.length} names but data.nModels is ${data.nModels}.`);
  if (data.X.length !== data.nItems * data.dim)
    fail("data.X", `has ${data.X.length} values, expected nItems x dim = ${data.nItems * data.dim}.`);
  if (data.offsets.length !== data.nItems + 1)
    fail("data.offsets", `has length ${data.offsets.length}, expected nItems + 1 = ${data.nItems + 1}.`);
  for (const key of ["train", "val", "test"] as const) {
    if (split[key].length === 0) fail(`split.${key}`, "is empty: the protocol needs train, val and test items.");
    for (const i of split[key])
      if (!(i >= 0 && i < data.nItems)) fail(`split.${key}`, `holds item index ${i}, outside 0..${data.nItems - 1}.`);
  }
  // An item in two parts (or twice in one) would leak what a method was trained or tuned on into what it is scored on.
  const part = new Map<number, string>();
  for (const key of ["train", "val", "test"] as const) {
    for (const i of split[key]) {
      const seen = part.get(i);
      if (seen !== undefined)
        fail(
          `split.${key}`,
          `holds item ${i}, which is already in split.${seen}: train, val and test must be disjoint, each item listed once.`,
        );
      part.set(i, key);
    }
  }
  if (ds.categories && ds.categories.length !== data.nItems)
    fail("categories", `has ${ds.categories.length} entries for ${data.nItems} items.`);
  if (ds.itemIds && ds.itemIds.length !== data.nItems)
    fail("itemIds", `has ${ds.itemIds.length} entries for ${data.nItems} items.`);
  if (ds.cost) {
    if (ds.cost.recorded.length !== data.y.length)
      fail("cost.recorded", `has ${ds.cost.recorded.length} values for ${data.y.length} labels.`);
    if (ds.cost.expected.length !== data.nItems * nModelsOf(ds))
      fail("cost.expected", `must be nItems x nModels = ${data.nItems * nModelsOf(ds)} values.`);
  }
}

function nModelsOf(ds: EvalDataset): number {
  return ds.data.nModels;
}

export function checkPredictions(method: string, pred: Float32Array, rows: number, nModels: number): void {
  if (pred.length !== rows * nModels) {
    throw new ValidationError(
      `Method "${method}" returned ${pred.length} predictions for ${rows} items x ${nModels} models.`,
      {
        path: `methods.${method}`,
      },
    );
  }
  for (let k = 0; k < pred.length; k++) {
    if (!(pred[k]! >= 0 && pred[k]! <= 1)) {
      throw new ValidationError(
        `Method "${method}" predicted p = ${pred[k]} (row ${Math.floor(k / nModels)}, model ${k % nModels}); p must be in [0, 1].`,
        {
          path: `methods.${method}`,
        },
      );
    }
  }
}
