import { z } from "zod";
import { parseWith } from "../util/validate.js";
import { bootstrapDiffCi, bootstrapMeanCi, bootstrapPlan, type BootstrapPlan } from "../stats/bootstrap.js";
import { bestPerTaskScores } from "./best-per-task.js";
import { TASK_HINTED_SUFFIX } from "./task-hinted.js";
import { defaultLambdaGrid, type CostLabelMatrix, type CurvePoint } from "./cost.js";
import { checkDataset, checkPredictions, costGaps } from "./dataset-checks.js";
import { correctnessMetrics, meanSd, nanMean, type CorrectnessMetrics } from "../stats/metrics.js";
import {
  IRT_MOE,
  type CostAwareSeed,
  type EvalDataset,
  type EvalReport,
  type EvaluateOptions,
  type MethodReport,
} from "./report.js";
import {
  bestSingleModel,
  gapClosed,
  modelAccuracies,
  oracleScores,
  randomChoiceScores,
  routeByPrediction,
  singleModelScores,
} from "../stats/routing-scores.js";
import type { RoutingMethod } from "./types.js";
import { costAwareReport, costAwareSeed, costReference, type CostContext } from "./cost-aware-eval.js";

export {
  IRT_MOE,
  type CostAwareReport,
  type CostAwareSeed,
  type EvalDataset,
  type EvalProgress,
  type EvalReport,
  type EvaluateOptions,
  type MethodReport,
} from "./report.js";

const optionsSchema = z.object({
  methods: z
    .array(
      z
        .object({
          name: z.string().min(1),
          seeded: z.boolean(),
          fit: z.custom<(...a: unknown[]) => unknown>((v) => typeof v === "function", "must be a function"),
        })
        .loose(),
    )
    .min(1),
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
  const seeds = [...(options.seeds ?? [1, 2, 3])];
  const resamples = options.bootstrap?.resamples ?? 1000;
  const bootSeed = options.bootstrap?.seed ?? 20260101;
  const test = split.test;
  const plan = bootstrapPlan(test.length, resamples, bootSeed);
  const gaps = dataset.cost ? costGaps(dataset) : undefined;
  const costAwareNotComputed = gaps?.notComputed;
  const costLabels: CostLabelMatrix | undefined =
    dataset.cost && !costAwareNotComputed ? { ...data, cost: dataset.cost.recorded } : undefined;

  const reference = referenceFigures(dataset);
  const cost = costLabels && costReference(dataset, costLabels, reference.best, gaps!.unknownCost.train);
  const context: RunContext = {
    dataset,
    options,
    seeds,
    lambdas: options.lambdas ?? defaultLambdaGrid(),
    cost: cost?.context,
  };
  const rows: Row[] = [];
  for (const method of options.methods) rows.push(await runMethod(method, context));
  rows.push(...referenceRows(dataset, reference));

  return {
    dataset: dataset.name,
    counts: { train: split.train.length, val: split.val.length, test: test.length },
    seeds,
    bootstrap: { resamples, seed: bootSeed },
    models,
    bestSingleModel: models[reference.best]!,
    methods: compareRows(rows, plan, reference),
    categories: categoryBreakdown(
      dataset,
      rows.map((r) => ({ name: r.report.name, perItem: r.perItem })),
    ),
    ...(cost && { costReference: cost.report }),
    ...(costAwareNotComputed && { costAwareNotComputed }),
  };
}

/** One row before the comparisons with the scorer's row (bootstrap intervals, differences, gap closed). */
interface Row {
  report: Omit<MethodReport, "diffVsIrtMoe" | "diffVsIrtMoeCi95" | "routingCi95" | "gapClosed">;
  /** Test routing score per item, averaged over seeds (NaN where no seed routed the item). */
  perItem: Float64Array;
}

/** The reference points: the best single model (by train accuracy), the oracle, and the constant-p prediction. */
interface ReferenceFigures {
  readonly best: number;
  readonly trainAcc: Float64Array;
  readonly bestScores: Float64Array;
  readonly oracle: Float64Array;
  readonly bestAcc: number;
  readonly oracleAcc: number;
  /** Correctness figures of predicting each model's train accuracy as its constant p. */
  readonly priorMetrics: CorrectnessMetrics;
}

/** What fitting and scoring one method needs from the run. */
interface RunContext {
  readonly dataset: EvalDataset;
  readonly options: EvaluateOptions;
  readonly seeds: readonly number[];
  readonly lambdas: readonly number[];
  /** Set when the dataset's cost data gives the cost-aware figures. */
  readonly cost?: CostContext;
}

function referenceFigures(dataset: EvalDataset): ReferenceFigures {
  const { data, split } = dataset;
  const nModels = data.nModels;
  const test = split.test;
  const best = bestSingleModel(data, split.train, nModels);
  const trainAcc = modelAccuracies(data, split.train, nModels);
  const bestScores = singleModelScores(data, test, best);
  const oracle = oracleScores(data, test);
  const priorPred = new Float32Array(test.length * nModels);
  for (let r = 0; r < test.length; r++) for (let m = 0; m < nModels; m++) priorPred[r * nModels + m] = trainAcc[m]!;
  const priorMetrics = correctnessMetrics(data, test, priorPred, nModels);
  return { best, trainAcc, bestScores, oracle, bestAcc: nanMean(bestScores), oracleAcc: nanMean(oracle), priorMetrics };
}

/** What one seed's fit of a method gave. */
interface SeedResult {
  readonly seed: number;
  readonly routed: Float64Array;
  readonly metrics: CorrectnessMetrics;
  readonly trainSeconds: number;
  readonly inferMs: number;
  readonly description: string;
  readonly cost?: { readonly seed: CostAwareSeed; readonly curve: CurvePoint[] };
}

/** Fits and scores one method on every seed it runs with: its row. */
async function runMethod(method: RoutingMethod, context: RunContext): Promise<Row> {
  const { seeds, dataset } = context;
  const runSeeds = method.seeded ? [...seeds] : [seeds[0]!];
  const results: SeedResult[] = [];
  for (const seed of runSeeds) results.push(await runSeed(method, seed, runSeeds.length > 1, context));
  const test = dataset.split.test;
  const perItemSum = new Float64Array(test.length);
  const perItemCount = new Float64Array(test.length);
  for (const result of results) {
    result.routed.forEach((s, r) => {
      if (Number.isFinite(s)) {
        perItemSum[r]! += s;
        perItemCount[r]!++;
      }
    });
  }
  const perItem = perItemSum.map((s, r) => (perItemCount[r]! > 0 ? s / perItemCount[r]! : NaN));
  const seedRouting = results.map((r) => nanMean(r.routed));
  const seedMetrics = results.map((r) => r.metrics);
  const routing = meanSd(seedRouting);
  const auc = meanSd(seedMetrics.map((m) => m.auc));
  const ece = meanSd(seedMetrics.map((m) => m.ece));
  const costAware = context.cost ? costAwareReport(results.map((r) => r.cost!)) : undefined;
  return {
    perItem,
    report: {
      name: method.name,
      kind: "learned",
      description: results.map((r) => r.description),
      seeds: runSeeds,
      routingAccuracy: routing.mean,
      routingAccuracySd: routing.sd,
      accuracy: meanSd(seedMetrics.map((m) => m.accuracy)).mean,
      auc: auc.mean,
      brier: meanSd(seedMetrics.map((m) => m.brier)).mean,
      ece: ece.mean,
      aucSd: auc.sd,
      eceSd: ece.sd,
      trainSeconds: meanSd(results.map((r) => r.trainSeconds)).mean,
      inferMsPerQuery: meanSd(results.map((r) => r.inferMs)).mean,
      ...(costAware && { costAware }),
      perSeed: runSeeds.map((seed, k) => ({ seed, routingAccuracy: seedRouting[k]!, auc: seedMetrics[k]!.auc })),
    },
  };
}

/** Fits one method with one seed, predicts the test items, routes them and (with cost data) sweeps the cost weight. */
async function runSeed(
  method: RoutingMethod,
  seed: number,
  manySeeds: boolean,
  context: RunContext,
): Promise<SeedResult> {
  const { dataset, options } = context;
  const { data, split } = dataset;
  const nModels = data.nModels;
  const test = split.test;
  options.onProgress?.({ stage: "fit", method: method.name, seed });
  const t0 = performance.now();
  const fitted = await method.fit(
    data,
    { train: split.train, val: split.val },
    {
      seed,
      onProgress: (fit) => options.onProgress?.({ stage: "fit", method: method.name, seed, fit }),
    },
  );
  const t1 = performance.now();
  const pred = await fitted.predict(data.X, test);
  const t2 = performance.now();
  checkPredictions(method.name, pred, test.length, nModels);
  const routed = routeByPrediction(data, test, pred, nModels).score;
  const metrics = correctnessMetrics(data, test, pred, nModels);
  const cost =
    context.cost && costAwareSeed(seed, pred, await fitted.predict(data.X, split.val), context, context.cost);
  options.onProgress?.({ stage: "done", method: method.name, seed, seconds: (t2 - t0) / 1000 });
  return {
    seed,
    routed,
    metrics,
    trainSeconds: (t1 - t0) / 1000,
    inferMs: (t2 - t1) / Math.max(1, test.length),
    description: manySeeds ? `seed ${seed}: ${fitted.description}` : fitted.description,
    ...(cost && { cost }),
  };
}

/** The rows of the reference points: best single model, a random observed candidate, the oracle. */
function referenceRows(dataset: EvalDataset, figures: ReferenceFigures): Row[] {
  const { data, split, models } = dataset;
  const { best, trainAcc } = figures;
  const row = (name: string, perItem: Float64Array, description: string, metrics?: CorrectnessMetrics): Row => ({
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
  return [
    row(
      "best-single",
      figures.bestScores,
      `always ${models[best]} (highest train accuracy, ${trainAcc[best]!.toFixed(4)}); scored on the test items it has. ` +
        `Correctness figures: each model's train accuracy as its constant p.`,
      figures.priorMetrics,
    ),
    ...bestPerTaskRow(bestPerTaskScores(data, split.train, split.test, dataset.categories, models.length), row),
    row("random", randomChoiceScores(data, split.test), "mean label over the observed candidates of each item"),
    row("oracle", figures.oracle, "1 if any observed candidate is correct (best observed label)"),
  ];
}

/** Adds each row's bootstrap interval, its paired difference from the scorer's row and the gap it closes. */
function compareRows(rows: readonly Row[], plan: BootstrapPlan, figures: ReferenceFigures): MethodReport[] {
  const irt = rows.find((r) => r.report.name === IRT_MOE);
  const perTask = rows.find((r) => r.report.name === "best-per-task");
  return rows.map(({ report, perItem }) => {
    const diff = irt ? nanMean(perItem) - nanMean(irt.perItem) : null;
    return {
      ...report,
      ...(perTask &&
        report.name.endsWith(TASK_HINTED_SUFFIX) && {
          diffVsBestPerTask: nanMean(perItem) - nanMean(perTask.perItem),
          diffVsBestPerTaskCi95: bootstrapDiffCi(perItem, perTask.perItem, plan),
        }),
      routingCi95: bootstrapMeanCi(perItem, plan),
      diffVsIrtMoe: irt ? (report.name === IRT_MOE ? 0 : diff) : null,
      diffVsIrtMoeCi95: irt ? (report.name === IRT_MOE ? [0, 0] : bootstrapDiffCi(perItem, irt.perItem, plan)) : null,
      gapClosed: gapClosed(report.routingAccuracy, figures.bestAcc, figures.oracleAcc),
    };
  });
}

/** The `best-per-task` reference row (src/eval/best-per-task.ts), or none when the test items have no category. */
function bestPerTaskRow<R>(
  scores: Float64Array | undefined,
  reference: (name: string, perItem: Float64Array, description: string) => R,
): R[] {
  if (!scores) return [];
  return [
    reference(
      "best-per-task",
      scores,
      "per category, the model with the highest train accuracy on it (others: best-single); scored on the test items it has",
    ),
  ];
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
