import { nanMean } from "../stats/metrics.js";
import type { LabelMatrix, PredictionBlock } from "./types.js";

/** Labels with the RECORDED USD cost of each observed call (aligned with `y`; NaN where unknown). */
export interface CostLabelMatrix extends LabelMatrix {
  readonly cost: Float32Array;
}

/** One point of a cost-quality curve. */
export interface CurvePoint {
  /** Cost weight of the policy p - lambda * expectedCost (USD^-1); absent for single-model points. */
  readonly lambda?: number;
  /** Mean RECORDED cost (USD per query) of the chosen calls; NaN when any of them has no recorded cost (see `unknownCost`). */
  readonly meanCost: number;
  /** Mean observed label of the chosen calls. */
  readonly accuracy: number;
  /** Chosen calls whose recorded cost is unknown (NaN); when > 0 the spend is unknown and `meanCost` is NaN. */
  readonly unknownCost?: number;
}

/** Mean cost of the chosen calls (NaN for items with no call), NaN when any chosen call's cost is unknown. */
function spend(acc: Float64Array, cost: Float64Array): { meanCost: number; unknownCost?: number } {
  let unknownCost = 0;
  for (let r = 0; r < cost.length; r++) if (Number.isFinite(acc[r]!) && !Number.isFinite(cost[r]!)) unknownCost++;
  return unknownCost > 0 ? { meanCost: NaN, unknownCost } : { meanCost: nanMean(cost) };
}

/**
 * Default cost-weight grid: 0, then 97 log-spaced values from 1e-1 to 1e7 per USD
 * (covers "cost does not matter" to "always the cheapest" for per-query costs of 1e-5 to 1e-1 USD).
 */
export function defaultLambdaGrid(): number[] {
  const out = [0];
  for (let k = 0; k <= 96; k++) out.push(10 ** (-1 + (8 * k) / 96));
  return out;
}

/**
 * Routes each item of `rows` with the cost-aware policy argmax_m p - lambda * expectedCost_m
 * among the models observed on it. `expectedCost[item * nModels + m]` is the EX-ANTE estimate the
 * policy decides on; the accounted spend is the chosen call's RECORDED cost. A chosen call without a
 * recorded cost is counted in `unknownCost` and makes `meanCost` NaN (it is never left out of the spend).
 */
export function costAwarePoint(
  labels: CostLabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  expectedCost: ArrayLike<number>,
  nModels: number,
  lambda: number,
): CurvePoint {
  const acc = new Float64Array(rows.length).fill(NaN);
  const cost = new Float64Array(rows.length).fill(NaN);
  rows.forEach((item, r) => {
    let best = -Infinity;
    let bestModel = -1;
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      const m = labels.model[e]!;
      const u = pred[r * nModels + m]! - (lambda > 0 ? lambda * expectedCost[item * nModels + m]! : 0);
      if (u > best || (u === best && m < bestModel)) {
        best = u;
        bestModel = m;
        acc[r] = labels.y[e]!;
        cost[r] = labels.cost[e]!;
      }
    }
  });
  return { lambda, ...spend(acc, cost), accuracy: nanMean(acc) };
}

/** The policy's accuracy-vs-mean-cost curve over a lambda grid. */
export function costCurve(
  labels: CostLabelMatrix,
  rows: readonly number[],
  pred: PredictionBlock,
  expectedCost: ArrayLike<number>,
  nModels: number,
  lambdas: readonly number[] = defaultLambdaGrid(),
): CurvePoint[] {
  return lambdas.map((l) => costAwarePoint(labels, rows, pred, expectedCost, nModels, l));
}

/**
 * Accuracy and mean recorded cost of always calling `model` (over the items where it is observed); `meanCost` is
 * NaN, and `unknownCost` counts them, when some of those calls have no recorded cost.
 */
export function singleModelPoint(labels: CostLabelMatrix, rows: readonly number[], model: number): CurvePoint {
  const acc: number[] = [];
  const cost: number[] = [];
  for (const item of rows) {
    for (let e = labels.offsets[item]!; e < labels.offsets[item + 1]!; e++) {
      if (labels.model[e] === model) {
        acc.push(labels.y[e]!);
        cost.push(labels.cost[e]!);
      }
    }
  }
  return { ...spend(Float64Array.from(acc), Float64Array.from(cost)), accuracy: nanMean(acc) };
}

/**
 * The upper envelope of a cost-quality curve: its upper convex hull, made non-decreasing
 * (past the most accurate vertex it stays flat, since spending more is never required).
 * Returned as hull vertices sorted by cost.
 */
export function upperHull(points: readonly CurvePoint[]): CurvePoint[] {
  const pts = points
    .filter((p) => Number.isFinite(p.meanCost) && Number.isFinite(p.accuracy))
    .slice()
    .sort((a, b) => a.meanCost - b.meanCost || b.accuracy - a.accuracy);
  const hull: CurvePoint[] = [];
  for (const p of pts) {
    if (hull.length > 0 && p.meanCost === hull[hull.length - 1]!.meanCost) continue; // keep the best at equal cost
    while (hull.length >= 2) {
      const a = hull[hull.length - 2]!;
      const b = hull[hull.length - 1]!;
      // drop b when it lies on or below the segment a -> p
      const cross =
        (b.meanCost - a.meanCost) * (p.accuracy - a.accuracy) - (b.accuracy - a.accuracy) * (p.meanCost - a.meanCost);
      if (cross >= 0) hull.pop();
      else break;
    }
    hull.push(p);
  }
  let peak = 0;
  for (let i = 1; i < hull.length; i++) if (hull[i]!.accuracy > hull[peak]!.accuracy) peak = i;
  return hull.slice(0, peak + 1);
}

/** Value of the non-decreasing upper hull at cost `c` (flat beyond its ends). */
export function hullValue(hull: readonly CurvePoint[], c: number): number {
  if (hull.length === 0) return NaN;
  if (c <= hull[0]!.meanCost) return hull[0]!.accuracy;
  for (let i = 1; i < hull.length; i++) {
    const a = hull[i - 1]!;
    const b = hull[i]!;
    if (c <= b.meanCost) return a.accuracy + ((b.accuracy - a.accuracy) * (c - a.meanCost)) / (b.meanCost - a.meanCost);
  }
  return hull[hull.length - 1]!.accuracy;
}

/**
 * Area under the curve's upper hull between costs `cMin` and `cMax` (the cheapest and the most
 * expensive single model), divided by `cMax - cMin`: the average accuracy the router offers over
 * that budget range. Outside the curve's own cost range the hull is extended flat.
 *
 * @example
 * ```ts
 * hullArea([{ meanCost: 0, accuracy: 0.5 }, { meanCost: 1, accuracy: 1 }], 0, 1); // 0.75
 * ```
 */
export function hullArea(points: readonly CurvePoint[], cMin: number, cMax: number): number {
  const hull = upperHull(points);
  if (hull.length === 0 || !(cMax > cMin)) return NaN;
  const xs = [cMin, ...hull.map((p) => p.meanCost).filter((c) => c > cMin && c < cMax), cMax];
  let area = 0;
  for (let i = 1; i < xs.length; i++) {
    area += ((hullValue(hull, xs[i - 1]!) + hullValue(hull, xs[i]!)) / 2) * (xs[i]! - xs[i - 1]!);
  }
  return area / (cMax - cMin);
}

/**
 * The cheapest point of the curve whose accuracy reaches `targetAccuracy`, as a fraction of
 * `referenceCost` (the best single model's mean cost). NaN when the curve never reaches it.
 */
export function matchCostFraction(curve: readonly CurvePoint[], targetAccuracy: number, referenceCost: number): number {
  let cheapest = Infinity;
  for (const p of curve) if (p.accuracy >= targetAccuracy && p.meanCost < cheapest) cheapest = p.meanCost;
  return Number.isFinite(cheapest) && referenceCost > 0 ? cheapest / referenceCost : NaN;
}

/**
 * The lambda to use under a spend cap, chosen on VALIDATION: the grid value with the highest
 * validation accuracy among those whose validation mean cost is at most `maxCost`
 * (ties: the cheaper). Undefined when no grid value stays under the cap.
 */
export function chooseLambdaUnderCap(valCurve: readonly CurvePoint[], maxCost: number): number | undefined {
  let best: CurvePoint | undefined;
  for (const p of valCurve) {
    if (!(p.meanCost <= maxCost)) continue;
    if (!best || p.accuracy > best.accuracy || (p.accuracy === best.accuracy && p.meanCost < best.meanCost)) best = p;
  }
  return best?.lambda;
}
