/**
 * The cost-aware figures of an evaluation: the single models' cost points, each seed's lambda chosen on val under the
 * 50% cap and scored on test with its curve, and a method's figures over the seeds.
 */
import {
  chooseLambdaUnderCap,
  costAwarePoint,
  costCurve,
  hullArea,
  matchCostFraction,
  singleModelPoint,
  type CostLabelMatrix,
  type CurvePoint,
} from "./cost.js";
import { meanSd, nanMean } from "../stats/metrics.js";
import type { CostAwareReport, CostAwareSeed, EvalDataset, EvalReport } from "./report.js";

/** The single models' cost points the cost-aware figures are measured against. */
export interface CostContext {
  readonly labels: CostLabelMatrix;
  readonly cheapest: number;
  readonly dearest: number;
  /** The best single model's mean cost on val (the 50% cap is chosen on val). */
  readonly bestValCost: number;
  /** The best single model's test point. */
  readonly bestTest: CurvePoint;
}

/** The single models' test accuracy and spend (the report's `costReference`) and the points the figures use. */
export function costReference(
  dataset: EvalDataset,
  labels: CostLabelMatrix,
  best: number,
  unknownTrainCost: number,
): { report: NonNullable<EvalReport["costReference"]>; context: CostContext } {
  const { split, models } = dataset;
  const singles = models.map((model, m) => ({ model, ...singleModelPoint(labels, split.test, m) }));
  const costs = singles.map((s) => s.meanCost).filter(Number.isFinite);
  const bestTest = singleModelPoint(labels, split.test, best);
  const context: CostContext = {
    labels,
    cheapest: Math.min(...costs),
    dearest: Math.max(...costs),
    bestTest,
    bestValCost: singleModelPoint(labels, split.val, best).meanCost,
  };
  const report = {
    singleModels: singles.map((s) => ({ model: s.model, accuracy: s.accuracy, meanCost: s.meanCost })),
    bestSingle: { model: models[best]!, accuracy: bestTest.accuracy, meanCost: bestTest.meanCost },
    unknownTrainCost,
    ...(dataset.cost?.note !== undefined && { note: dataset.cost.note }),
  };
  return { report, context };
}

/** One seed's cost-aware figures: the lambda chosen on val under the 50% cap, scored on test, and the test curve. */
export function costAwareSeed(
  seed: number,
  pred: Float32Array,
  valPred: Float32Array,
  run: { readonly dataset: EvalDataset; readonly lambdas: readonly number[] },
  cost: CostContext,
): { seed: CostAwareSeed; curve: CurvePoint[] } {
  const { data, split } = run.dataset;
  const nModels = data.nModels;
  const { labels, bestTest } = cost;
  const lambdas = run.lambdas;
  const expected = run.dataset.cost!.expected;
  const valCurve = costCurve(labels, split.val, valPred, expected, nModels, lambdas);
  const lambda = chooseLambdaUnderCap(valCurve, 0.5 * cost.bestValCost);
  const point = lambda === undefined ? undefined : costAwarePoint(labels, split.test, pred, expected, nModels, lambda);
  const curve = costCurve(labels, split.test, pred, expected, nModels, lambdas);
  const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);
  return {
    curve,
    seed: {
      seed,
      accuracyAtHalfCost: point ? point.accuracy : null,
      halfCostSpendFraction: point ? point.meanCost / bestTest.meanCost : null,
      matchCostFraction: finite(matchCostFraction(curve, bestTest.accuracy, bestTest.meanCost)),
      hullArea: finite(hullArea(curve, cost.cheapest, cost.dearest)),
    },
  };
}

/** A method's cost-aware figures: each one's mean and sd over the seeds that have it (null when none has). */
export function costAwareReport(perSeed: readonly { seed: CostAwareSeed; curve: CurvePoint[] }[]): CostAwareReport {
  const costSeeds = perSeed.map((s) => s.seed);
  const over = (key: keyof Omit<CostAwareSeed, "seed">) => {
    const values = costSeeds.map((c) => c[key]).filter((v): v is number => v !== null);
    const { mean, sd } = meanSd(values);
    return { n: values.length, mean: values.length > 0 ? mean : null, sd: values.length > 0 ? sd : null };
  };
  const hc = over("accuracyAtHalfCost");
  const match = over("matchCostFraction");
  const hull = over("hullArea");
  return {
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
    curve: averageCurves(perSeed.map((s) => s.curve)),
  };
}

/** The mean curve over seeds, point by point (the seeds share the lambda grid). */
function averageCurves(curves: CurvePoint[][]): CurvePoint[] {
  if (curves.length === 0) return [];
  return curves[0]!.map((p, k) => ({
    lambda: p.lambda,
    meanCost: nanMean(curves.map((c) => c[k]!.meanCost)),
    accuracy: nanMean(curves.map((c) => c[k]!.accuracy)),
  }));
}
