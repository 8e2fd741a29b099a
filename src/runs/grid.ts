/**
 * A task's difficulty as a distribution on a fixed grid: the prior from the task text, times the likelihood of the
 * runs already seen to fail (or pass) on this task. Difficulty is shared by every model (p = sigmoid(a - b)), so one
 * model's failure raises the estimated difficulty for all of them.
 */
import { sigmoid } from "../util/maths.js";

/** Grid points of the difficulty b, in logits. */
export const GRID: Float64Array = Float64Array.from({ length: 81 }, (_, i) => -8 + (16 * i) / 80);

/** A model's ability as the router knows it: mean and variance (logits). */
export interface Ability {
  readonly mean: number;
  readonly variance: number;
}

/** Weights of the grid points (sum 1) for a normal prior N(mean, sd^2). */
export function priorWeights(mean: number, sd: number): Float64Array {
  const w = new Float64Array(GRID.length);
  let total = 0;
  for (let i = 0; i < GRID.length; i++) {
    const z = (GRID[i]! - mean) / sd;
    total += w[i] = Math.exp(-0.5 * z * z);
  }
  for (let i = 0; i < w.length; i++) w[i]! /= total;
  return w;
}

/** p(success | b) of a model at each grid point, its ability's uncertainty folded in (probit approximation). */
export function successCurve(ability: Ability): Float64Array {
  const k = 1 / Math.sqrt(1 + (Math.PI * ability.variance) / 8);
  return GRID.map((b) => sigmoid(k * (ability.mean - b)));
}

/** Predictive success probability under the difficulty weights. */
export function predictive(weights: Float64Array, curve: Float64Array): number {
  let p = 0;
  for (let i = 0; i < weights.length; i++) p += weights[i]! * curve[i]!;
  return p;
}

/** The difficulty weights after an outcome y in [0, 1] of the model with this curve (y = 0: a failure). */
export function updated(weights: Float64Array, curve: Float64Array, y: number): Float64Array {
  const out = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const p = curve[i]!;
    total += out[i] = weights[i]! * (y * p + (1 - y) * (1 - p));
  }
  if (total <= 0) return weights;
  for (let i = 0; i < out.length; i++) out[i]! /= total;
  return out;
}

/** Mean and standard deviation of the difficulty under the weights. */
export function moments(weights: Float64Array): { mean: number; sd: number } {
  let m = 0;
  let s = 0;
  for (let i = 0; i < weights.length; i++) m += weights[i]! * GRID[i]!;
  for (let i = 0; i < weights.length; i++) s += weights[i]! * (GRID[i]! - m) ** 2;
  return { mean: m, sd: Math.sqrt(s) };
}

/**
 * One draw of every ability from its posterior, widened by `scale` (exploration by Thompson sampling: `scale` 1 is the
 * posterior itself); each draw is a point (variance 0).
 */
export function drawnAbilities(
  abilities: ReadonlyMap<string, Ability>,
  scale: number,
  rng: { normal(): number },
): Map<string, Ability> {
  return new Map(
    [...abilities].map(([id, a]) => [id, { mean: a.mean + scale * Math.sqrt(a.variance) * rng.normal(), variance: 0 }]),
  );
}
