import { z } from "zod";
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { bootstrapDiffCi, bootstrapMeanCi, bootstrapPlan } from "./bootstrap.js";
import { bestPerTaskScores } from "./best-per-task.js";
import {
  chooseLambdaUnderCap,
  costAwarePoint,
  costCurve,
  defaultLambdaGrid,
  hullArea,
  matchCostFraction,
  singleModelPoint,
  type CostLabelMatrix,
  type CurvePoint,
} from "./cost.js";
import { correctnessMetrics, meanSd, nanMean, type CorrectnessMetrics } from "./metrics.js";
import {
  bestSingleModel,
  gapClosed,
  modelAccuracies,
  oracleScores,
  randomChoiceScores,
  routeByPrediction,
  singleModelScores,
} from "./routing.js";
import type { ModelCostEstimate } from "./expected-cost.js";
import type { EmbeddedLabelData, FitProgress, RoutingMethod } from "./types.js";

/** Name of the scorer's row; every other method's difference is measured against it. */
export const IRT_MOE = "irt-moe";

/** What the harness evaluates on: one dataset, embedded, with the protocol's split. */
export interface EvalDataset {
  /** Dataset name (`D` of the split rule). */
  readonly name: string;
  /** Model names, by model index. */
  readonly models: readonly string[];
  readonly data: EmbeddedLabelData;
  readonly split: { readonly train: readonly number[]; readonly val: readonly number[]; readonly test: readonly number[] };
  /** Category of each item (index-aligned; undefined = none), for the per-category breakdown. */
  readonly categories?: readonly (string | undefined)[];
  /** Item ids (index-aligned), to name items in notes; optional. */
  readonly itemIds?: readonly string[];
  /** Cost data, on datasets with per-query cost. */
  readonly cost?: {
    /**
     * RECORDED USD cost of each observed call, aligned with `data.y` (used only to account spend); NaN = unknown.
     * A val or test call without one leaves a router's spend unknown: then no cost-aware figure is computed
     * (`EvalReport.costAwareNotComputed` says why).
     */
    readonly recorded: Float32Array;
    /** EX-ANTE expected cost, `nItems x nModels` (what the policy decides on); NaN = no estimate (no cost-aware figures then). */
    readonly expected: ArrayLike<number>;
    /** How the expected cost was estimated (printed with the results). */
    readonly note?: string;
    /** Per model, how its expected cost was estimated (`estimateExpectedCosts`' `perModel`): a model without one is named with its reason. */
    readonly estimates?: readonly ModelCostEstimate[];
  };
}

/** Progress of an evaluation run. */
export type EvalProgress =
  | { readonly stage: "fit"; readonly method: string; readonly seed: number; readonly fit?: FitProgress }
  | { readonly stage: "done"; readonly method: string; readonly seed: number; readonly seconds: number };

export interface EvaluateOptions {
  /** Methods to fit and score (the scorer's row should be named "irt-moe"). */
  readonly methods: readonly RoutingMethod[];
  /** Seeds; seeded methods run once per seed, deterministic ones once. Default [1, 2, 3]. */
  readonly seeds?: readonly number[];
  /** Bootstrap resamples (default 1000) and seed (default 20260101). */
  readonly bootstrap?: { readonly resamples?: number; readonly seed?: number };
  /** Cost-weight grid of the cost-aware sweep (default {@link defaultLambdaGrid}). */
  readonly lambdas?: readonly number[];
  readonly onProgress?: (event: EvalProgress) => void;
}

/** The cost-aware figures of one seed's fitted method. */
export interface CostAwareSeed {
  readonly seed: number;
  /** Test accuracy at the lambda chosen on val under the 50% spend cap; null when no lambda met the cap on val. */
  readonly accuracyAtHalfCost: number | null;
  /** Test spend at that lambda / the best single model's test spend. */
  readonly halfCostSpendFraction: number | null;
  /** This seed's test curve's cheapest point reaching the best single model's test accuracy / that model's test spend; null: it never does. */
  readonly matchCostFraction: number | null;
  readonly hullArea: number | null;
}

/**
 * Cost-aware figures of one method. Each is computed per seed (one seed = one fitted router) and averaged over the
 * seeds where it exists; the counts say over how many, and `perSeed` holds every seed's values. A figure is null
 * only when no seed has it.
 */
export interface CostAwareReport {
  /** Test accuracy with lambda chosen on VAL as the most accurate setting at <= 50% of the best single model's val spend (mean over `halfCostSeeds`). */
  readonly accuracyAtHalfCost: number | null;
  readonly accuracyAtHalfCostSd: number | null;
  /** Test spend at that lambda as a fraction of the best single model's test spend (mean over `halfCostSeeds`). */
  readonly halfCostSpendFraction: number | null;
  /** Seeds in which some lambda met the 50% cap on val. */
  readonly halfCostSeeds: number;
  /**
   * Cheapest test point matching the best single model's test accuracy, as a fraction of its test spend: the mean over
   * the `matchedSeeds` seeds whose curve reaches that accuracy (null: no seed's curve does).
   */
  readonly matchCostFraction: number | null;
  readonly matchCostFractionSd: number | null;
  /** Seeds in which the curve reached the best single model's accuracy. */
  readonly matchedSeeds: number;
  /** Normalised area under the test curve's upper convex hull between the cheapest and the most expensive single model. */
  readonly hullArea: number | null;
  readonly hullAreaSd: number | null;
  /** Each seed's figures. */
  readonly perSeed: readonly CostAwareSeed[];
  /** Test accuracy-vs-mean-cost curve, averaged over seeds at each lambda. */
  readonly curve: readonly CurvePoint[];
}

/** One row of the results. */
export interface MethodReport {
  readonly name: string;
  /** "reference": best-single, random, oracle; "learned": everything fitted. */
  readonly kind: "learned" | "reference";
  /** What was fitted (chosen hyperparameters, per seed). */
  readonly description: readonly string[];
  /** Seeds this row was run with (one entry for deterministic methods). */
  readonly seeds: readonly number[];
  readonly routingAccuracy: number;
  readonly routingAccuracySd: number;
  readonly routingCi95: [number, number];
  readonly diffVsIrtMoe: number | null;
  readonly diffVsIrtMoeCi95: [number, number] | null;
  /** Correctness-prediction figures (means over seeds; null for rows without predictions). */
  readonly accuracy: number | null;
  readonly auc: number | null;
  readonly brier: number | null;
  readonly ece: number | null;
  readonly aucSd: number | null;
  readonly eceSd: number | null;
  readonly gapClosed: number;
  readonly trainSeconds: number | null;
  readonly inferMsPerQuery: number | null;
  readonly costAware?: CostAwareReport;
  /** Per-seed routing accuracy and AUC. */
  readonly perSeed: readonly { readonly seed: number; readonly routingAccuracy: number; readonly auc: number | null }[];
}

/** The full result of one evaluation. */
export interface EvalReport {
  readonly dataset: string;
  readonly counts: { readonly train: number; readonly val: number; readonly test: number };
  readonly seeds: readonly number[];
  readonly bootstrap: { readonly resamples: number; readonly seed: number };
  readonly models: readonly string[];
  readonly bestSingleModel: string;
  readonly methods: readonly MethodReport[];
  /** Test routing accuracy per category and method (seed-averaged per item). */
  readonly categories: readonly { readonly category: string; readonly n: number; readonly routing: Readonly<Record<string, number>> }[];
  /** Single models' test accuracy and mean recorded cost, on datasets with cost. */
  readonly costReference?: {
    readonly singleModels: readonly { readonly model: string; readonly accuracy: number; readonly meanCost: number }[];
    readonly bestSingle: { readonly model: string; readonly accuracy: number; readonly meanCost: number };
    /** Train calls without a recorded cost (they cannot inform the ex-ante estimate; val and test have none, or there would be no figures). */
    readonly unknownTrainCost: number;
    readonly note?: string;
  };
  /**
   * On a dataset with cost data that cannot give the cost-aware figures (val or test calls without a recorded cost,
   * or a model without an ex-ante cost estimate): why, with the counts. No method then has `costAware`, and there is
   * no `costReference`: nothing is computed on part of the calls.
   */
  readonly costAwareNotComputed?: {
    readonly reason: string;
    /** Observed calls without a recorded cost, per split. */
    readonly unknownCost: { readonly train: number; readonly val: number; readonly test: number };
    /** Models observed on val or test items that have no ex-ante cost estimate. */
    readonly modelsWithoutEstimate: readonly string[];
  };
}

const optionsSchema = z.object({
  methods: z.array(z.object({ name: z.string().min(1), seeded: z.boolean(), fit: z.custom<(...a: unknown[]) => unknown>((v) => typeof v === "function", "must be a function") }).loose()).min(1),
  seeds: z.array(z.number().int()).min(1).optional(),
  bootstrap: z
    .object({ resamples: z.number().int().min(100).optional(), seed: z.number().int().optional() })
    .strict()
    .optional(),
  lambdas: z.array(z.number().min(0)).min(2).optional(),
  onProgress: z.custom<(...a: unknown[]) => unknown>((v) => typeof v === "function", "must be a function").optional(),
});

/**
 * Runs the protocol (../shared/BENCHMARK.md) for every method on one split and one set of
 * embeddings: correctness prediction over observed test pairs, routing accuracy with paired
 * bootstrap CIs and differences from `irt-moe`, reference rows, gap closed, per-category routing,
 * timings, and (with cost data) the cost-aware figures. Pure: takes arrays, does no I/O.
 *
 * @example
 * ```ts
 * const report = await evaluate(dataset, {
 *   methods: [knnBaseline(), logisticRegressionBaseline()],
 *   seeds: [1, 2, 3],
 * });
 * console.log(formatEvalText(report));
 * ```
 */
export async function evaluate(dataset: EvalDataset, options: EvaluateOptions): Promise<EvalReport> {
  parseWith(optionsSchema, options, "evaluateOptions");
  checkDataset(dataset);
  const { data, split, models } = dataset;
  const nModels = data.nModels;
  const seeds = [...(options.seeds ?? [1, 2, 3])];
  const resamples = options.bootstrap?.resamples ?? 1000;
  const bootSeed = options.bootstrap?.seed ?? 20260101;
  const lambdas = options.lambdas ?? defaultLambdaGrid();
  const test = split.test;
  const plan = bootstrapPlan(test.length, resamples, bootSeed);
  const gaps = dataset.cost ? costGaps(dataset) : undefined;
  const costAwareNotComputed = gaps?.notComputed;
  const costLabels: CostLabelMatrix | undefined = dataset.cost && !costAwareNotComputed ? { ...data, cost: dataset.cost.recorded } : undefined;

  // Reference rows.
  const best = bestSingleModel(data, split.train, nModels);
  const trainAcc = modelAccuracies(data, split.train, nModels);
  const bestScores = singleModelScores(data, test, best);
  const oracle = oracleScores(data, test);
  const bestAcc = nanMean(bestScores);
  const oracleAcc = nanMean(oracle);
  const priorPred = new Float32Array(test.length * nModels);
  for (let r = 0; r < test.length; r++) for (let m = 0; m < nModels; m++) priorPred[r * nModels + m] = trainAcc[m]!;
  const priorMetrics = correctnessMetrics(data, test, priorPred, nModels);

  let costRef: EvalReport["costReference"];
  let cheapest = NaN;
  let dearest = NaN;
  let bestValCost = NaN;
  let bestTest: CurvePoint | undefined;
  if (costLabels) {
    const singles = models.map((model, m) => ({ model, ...singleModelPoint(costLabels, test, m) }));
    const costs = singles.map((s) => s.meanCost).filter(Number.isFinite);
    cheapest = Math.min(...costs);
    dearest = Math.max(...costs);
    bestTest = singleModelPoint(costLabels, test, best);
    bestValCost = singleModelPoint(costLabels, split.val, best).meanCost;
    costRef = {
      singleModels: singles.map((s) => ({ model: s.model, accuracy: s.accuracy, meanCost: s.meanCost })),
      bestSingle: { model: models[best]!, accuracy: bestTest.accuracy, meanCost: bestTest.meanCost },
      unknownTrainCost: gaps!.unknownCost.train,
      ...(dataset.cost?.note !== undefined && { note: dataset.cost.note }),
    };
  }

  interface Row {
    report: Omit<MethodReport, "diffVsIrtMoe" | "diffVsIrtMoeCi95" | "routingCi95" | "gapClosed">;
    perItem: Float64Array;
  }
  const rows: Row[] = [];

  for (const method of options.methods) {
    const runSeeds = method.seeded ? seeds : [seeds[0]!];
    const perItemSum = new Float64Array(test.length);
    const perItemCount = new Float64Array(test.length);
    const seedRouting: number[] = [];
    const seedMetrics: CorrectnessMetrics[] = [];
    const trainSecs: number[] = [];
    const inferMs: number[] = [];
    const descriptions: string[] = [];
    const costSeeds: CostAwareSeed[] = [];
    const curves: CurvePoint[][] = [];
    for (const seed of runSeeds) {
      options.onProgress?.({ stage: "fit", method: method.name, seed });
      const t0 = performance.now();
      const fitted = await method.fit(data, { train: split.train, val: split.val }, {
        seed,
        onProgress: (fit) => options.onProgress?.({ stage: "fit", method: method.name, seed, fit }),
      });
      const t1 = performance.now();
      const pred = await fitted.predict(data.X, test);
      const t2 = performance.now();
      checkPredictions(method.name, pred, test.length, nModels);
      trainSecs.push((t1 - t0) / 1000);
      inferMs.push((t2 - t1) / Math.max(1, test.length));
      descriptions.push(runSeeds.length > 1 ? `seed ${seed}: ${fitted.description}` : fitted.description);
      const routed = routeByPrediction(data, test, pred, nModels);
      routed.score.forEach((s, r) => {
        if (Number.isFinite(s)) {
          perItemSum[r]! += s;
          perItemCount[r]!++;
        }
      });
      seedRouting.push(nanMean(routed.score));
      seedMetrics.push(correctnessMetrics(data, test, pred, nModels));
      if (costLabels && bestTest) {
        const expected = dataset.cost!.expected;
        const valPred = await fitted.predict(data.X, split.val);
        const valCurve = costCurve(costLabels, split.val, valPred, expected, nModels, lambdas);
        const lambda = chooseLambdaUnderCap(valCurve, 0.5 * bestValCost);
        const point = lambda === undefined ? undefined : costAwarePoint(costLabels, test, pred, expected, nModels, lambda);
        const curve = costCurve(costLabels, test, pred, expected, nModels, lambdas);
        curves.push(curve);
        const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
        costSeeds.push({
          seed,
          accuracyAtHalfCost: point ? point.accuracy : null,
          halfCostSpendFraction: point ? point.meanCost / bestTest.meanCost : null,
          matchCostFraction: finite(matchCostFraction(curve, bestTest.accuracy, bestTest.meanCost)),
          hullArea: finite(hullArea(curve, cheapest, dearest)),
        });
      }
      options.onProgress?.({ stage: "done", method: method.name, seed, seconds: (t2 - t0) / 1000 });
    }
    const perItem = perItemSum.map((s, r) => (perItemCount[r]! > 0 ? s / perItemCount[r]! : NaN));
    const routing = meanSd(seedRouting);
    const auc = meanSd(seedMetrics.map((m) => m.auc));
    const ece = meanSd(seedMetrics.map((m) => m.ece));
    let costAware: CostAwareReport | undefined;
    if (costLabels) {
      // Each figure: mean and sd over the seeds that have it (null when none has).
      const over = (key: keyof Omit<CostAwareSeed, "seed">) => {
        const values = costSeeds.map((c) => c[key]).filter((v): v is number => v !== null);
        const { mean, sd } = meanSd(values);
        return { n: values.length, mean: values.length > 0 ? mean : null, sd: values.length > 0 ? sd : null };
      };
      const hc = over("accuracyAtHalfCost");
      const match = over("matchCostFraction");
      const hull = over("hullArea");
      costAware = {
        accuracyAtHalfCost: hc.mean,
        accuracyAtHalfCostSd: hc.sd,
        halfCostSpendFraction: over("halfCostSpendFraction").mean,
        halfCostSeeds: hc.n,
        matchCostFraction: match.mean,
        matchCostFractionSd: match.sd,
        matchedSeeds: match.n,
        hullArea: hull.mean,
        hullAreaSd: hull.sd,
        perSeed: costSeeds,
        curve: averageCurves(curves),
      };
    }
    rows.push({
      perItem,
      report: {
        name: method.name,
        kind: "learned",
        description: descriptions,
        seeds: runSeeds,
        routingAccuracy: routing.mean,
        routingAccuracySd: routing.sd,
        accuracy: meanSd(seedMetrics.map((m) => m.accuracy)).mean,
        auc: auc.mean,
        brier: meanSd(seedMetrics.map((m) => m.brier)).mean,
        ece: ece.mean,
        aucSd: auc.sd,
        eceSd: ece.sd,
        trainSeconds: meanSd(trainSecs).mean,
        inferMsPerQuery: meanSd(inferMs).mean,
        ...(costAware && { costAware }),
        perSeed: runSeeds.map((seed, k) => ({ seed, routingAccuracy: seedRouting[k]!, auc: seedMetrics[k]!.auc })),
      },
    });
  }

  const reference = (
    name: string,
    perItem: Float64Array,
    description: string,
    metrics?: CorrectnessMetrics,
  ): Row => ({
    perItem,
    report: {
      name,
      kind: "reference",
      description: [description],
      seeds: [],
      routingAccuracy: nanMean(perItem),
      routingAccuracySd: 0,
      accuracy: metrics?.accuracy ?? null,
      auc: metrics?.auc ?? null,
      brier: metrics?.brier ?? null,
      ece: metrics?.ece ?? null,
      aucSd: metrics ? 0 : null,
      eceSd: metrics ? 0 : null,
      trainSeconds: null,
      inferMsPerQuery: null,
      perSeed: [],
    },
  });
  rows.push(
    reference(
      "best-single",
      bestScores,
      `always ${models[best]} (highest train accuracy, ${trainAcc[best]!.toFixed(4)}); scored on the test items it has. ` +
        `Correctness figures: each model's train accuracy as its constant p.`,
      priorMetrics,
    ),
    ...bestPerTaskRow(bestPerTaskScores(data, split.train, test, dataset.categories, nModels), reference),
    reference("random", randomChoiceScores(data, test), "mean label over the observed candidates of each item"),
    reference("oracle", oracle, "1 if any observed candidate is correct (best observed label)"),
  );

  const irt = rows.find((r) => r.report.name === IRT_MOE);
  const methods: MethodReport[] = rows.map(({ report, perItem }) => {
    const diff = irt ? nanMean(perItem) - nanMean(irt.perItem) : null;
    return {
      ...report,
      routingCi95: bootstrapMeanCi(perItem, plan),
      diffVsIrtMoe: irt ? (report.name === IRT_MOE ? 0 : diff) : null,
      diffVsIrtMoeCi95: irt ? (report.name === IRT_MOE ? [0, 0] : bootstrapDiffCi(perItem, irt.perItem, plan)) : null,
      gapClosed: gapClosed(report.routingAccuracy, bestAcc, oracleAcc),
    };
  });

  return {
    dataset: dataset.name,
    counts: { train: split.train.length, val: split.val.length, test: test.length },
    seeds,
    bootstrap: { resamples, seed: bootSeed },
    models,
    bestSingleModel: models[best]!,
    methods,
    categories: categoryBreakdown(dataset, rows.map((r) => ({ name: r.report.name, perItem: r.perItem }))),
    ...(costRef && { costReference: costRef }),
    ...(costAwareNotComputed && { costAwareNotComputed }),
  };
}

/**
 * The observed calls without a recorded cost, per split (the one count of them: the report's `unknownCost` and
 * `costReference.unknownTrainCost`), and, in `notComputed`, why the dataset's cost data cannot give the cost-aware
 * figures (undefined when it can): every observed val and test call needs a recorded cost (the spend of a router that
 * picks one is otherwise unknown) and every model observed there an ex-ante estimate (the policy decides on it). Train
 * calls without a cost only narrow the estimate; they are counted.
 */
function costGaps(ds: EvalDataset): { unknownCost: { train: number; val: number; test: number }; notComputed?: EvalReport["costAwareNotComputed"] } {
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
        if (part !== "train" && examples.length < 3) examples.push(`item "${ds.itemIds?.[item] ?? `#${item}`}" with model "${models[m]}"`);
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
      `there is no ex-ante cost estimate for ${[...noEstimate].sort((a, b) => a - b).map((m) => `"${models[m]}" (${why(m)})`).join(", ")}, ` +
        `so the policy cannot weigh ${modelsWithoutEstimate.length === 1 ? "its" : "their"} cost`,
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

function averageCurves(curves: CurvePoint[][]): CurvePoint[] {
  if (curves.length === 0) return [];
  return curves[0]!.map((p, k) => ({
    lambda: p.lambda,
    meanCost: nanMean(curves.map((c) => c[k]!.meanCost)),
    accuracy: nanMean(curves.map((c) => c[k]!.accuracy)),
  }));
}

/** The `best-per-task` reference row (src/eval/best-per-task.ts), or none when the test items have no category. */
function bestPerTaskRow<R>(scores: Float64Array | undefined, reference: (name: string, perItem: Float64Array, description: string) => R): R[] {
  if (!scores) return [];
  return [reference("best-per-task", scores, "per category, the model with the highest train accuracy on it (others: best-single); scored on the test items it has")];
}

function categoryBreakdown(
  dataset: EvalDataset,
  rows: { name: string; perItem: Float64Array }[],
): EvalReport["categories"] {
  const cats = dataset.categories;
  if (!cats || !dataset.split.test.some((i) => cats[i] !== undefined)) return [];
  const groups = new Map<string, number[]>();
  dataset.split.test.forEach((item, r) => {
    const c = cats[item] ?? "(none)";
    let g = groups.get(c);
    if (!g) groups.set(c, (g = []));
    g.push(r);
  });
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, idx]) => ({
      category,
      n: idx.length,
      routing: Object.fromEntries(rows.map((row) => [row.name, nanMean(idx.map((r) => row.perItem[r]!))])),
    }));
}

function checkDataset(ds: EvalDataset): void {
  const { data, split, models } = ds;
  const fail = (path: string, message: string): never => {
    throw new ValidationError(`Invalid evaluation dataset: ${path} ${message}`, { path: `dataset.${path}` });
  };
  if (models.length !== data.nModels) fail("models", `has ${models.length} names but data.nModels is ${data.nModels}.`);
  if (data.X.length !== data.nItems * data.dim) fail("data.X", `has ${data.X.length} values, expected nItems x dim = ${data.nItems * data.dim}.`);
  if (data.offsets.length !== data.nItems + 1) fail("data.offsets", `has length ${data.offsets.length}, expected nItems + 1 = ${data.nItems + 1}.`);
  for (const key of ["train", "val", "test"] as const) {
    if (split[key].length === 0) fail(`split.${key}`, "is empty: the protocol needs train, val and test items.");
    for (const i of split[key]) if (!(i >= 0 && i < data.nItems)) fail(`split.${key}`, `holds item index ${i}, outside 0..${data.nItems - 1}.`);
  }
  // An item in two parts (or twice in one) would leak what a method was trained or tuned on into what it is scored on.
  const part = new Map<number, string>();
  for (const key of ["train", "val", "test"] as const) {
    for (const i of split[key]) {
      const seen = part.get(i);
      if (seen !== undefined) fail(`split.${key}`, `holds item ${i}, which is already in split.${seen}: train, val and test must be disjoint, each item listed once.`);
      part.set(i, key);
    }
  }
  if (ds.categories && ds.categories.length !== data.nItems) fail("categories", `has ${ds.categories.length} entries for ${data.nItems} items.`);
  if (ds.itemIds && ds.itemIds.length !== data.nItems) fail("itemIds", `has ${ds.itemIds.length} entries for ${data.nItems} items.`);
  if (ds.cost) {
    if (ds.cost.recorded.length !== data.y.length) fail("cost.recorded", `has ${ds.cost.recorded.length} values for ${data.y.length} labels.`);
    if (ds.cost.expected.length !== data.nItems * nModelsOf(ds)) fail("cost.expected", `must be nItems x nModels = ${data.nItems * nModelsOf(ds)} values.`);
  }
}

function nModelsOf(ds: EvalDataset): number {
  return ds.data.nModels;
}

function checkPredictions(method: string, pred: Float32Array, rows: number, nModels: number): void {
  if (pred.length !== rows * nModels) {
    throw new ValidationError(`Method "${method}" returned ${pred.length} predictions for ${rows} items x ${nModels} models.`, {
      path: `methods.${method}`,
    });
  }
  for (let k = 0; k < pred.length; k++) {
    if (!(pred[k]! >= 0 && pred[k]! <= 1)) {
      throw new ValidationError(`Method "${method}" predicted p = ${pred[k]} (row ${Math.floor(k / nModels)}, model ${k % nModels}); p must be in [0, 1].`, {
        path: `methods.${method}`,
      });
    }
  }
}
