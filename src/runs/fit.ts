/**
 * The run-level model fitted to run outcomes: p(model m passes task t) = sigmoid(a_m - b_t), one ability per model and
 * one difficulty per task shared by every model (a Rasch model). Maximum a posteriori by alternating Newton steps,
 * with graded outcomes (a success rate) as soft labels. Abilities have a prior from the price tier
 * (a = level + slope * log(run cost / median run cost)), whose level and slope are themselves fitted to the models seen
 * so far and shrunk to the defaults; difficulties have a prior N(prior mean of the task, sd^2).
 */
import { sigmoid } from "../util/maths.js";
import type { Ability } from "./grid.js";

/** One observed run: the task key, the model, the outcome in [0, 1] and the weight it counts with. */
export interface RunObservation {
  readonly task: string;
  readonly model: string;
  readonly outcome: number;
  readonly weight?: number;
}

/** Settings of the fit (see {@link RunPriors}). */
export interface FitPriors {
  /** Prior sd of an ability around its price-tier mean (logits). */
  readonly abilitySd: number;
  /** Prior sd of a task's difficulty around its text prior mean. */
  readonly difficultySd: number;
  /** Default slope of ability on log run cost (logits per e-fold of price), before the models' data moves it. */
  readonly priceSlope: number;
  /** How many models' worth of evidence the default level and slope count for. */
  readonly tierStrength: number;
}

export interface FitInput {
  readonly observations: readonly RunObservation[];
  /** log(run cost / median run cost) of every model the router knows (all models get an ability). */
  readonly logCost: ReadonlyMap<string, number>;
  /** Prior mean of each task's difficulty (default 0). */
  readonly taskPrior?: (task: string) => number;
  readonly priors: FitPriors;
  /** Starting point (the previous fit), for warm starts. */
  readonly start?: FitResult;
  readonly iterations?: number;
}

export interface FitResult {
  readonly abilities: Map<string, Ability>;
  readonly difficulties: Map<string, { mean: number; variance: number }>;
  /** The price-tier prior: ability mean = level + slope * logCost. */
  readonly tier: { level: number; slope: number };
}

/** Fit abilities and difficulties to the observations (see the module comment). */
export function fitRuns(input: FitInput): FitResult {
  const { observations, logCost, priors } = input;
  const models = [...logCost.keys()];
  const mIndex = new Map(models.map((m, i) => [m, i]));
  const tasks = [...new Set(observations.map((o) => o.task))];
  const tIndex = new Map(tasks.map((t, i) => [t, i]));
  const obs = observations
    .filter((o) => mIndex.has(o.model))
    .map((o) => ({ m: mIndex.get(o.model)!, t: tIndex.get(o.task)!, y: o.outcome, w: o.weight ?? 1 }));
  const x = models.map((m) => logCost.get(m)!);
  const a = models.map((m) => input.start?.abilities.get(m)?.mean ?? 0);
  const bPrior = tasks.map((t) => input.taskPrior?.(t) ?? 0);
  const b = tasks.map((t, i) => input.start?.difficulties.get(t)?.mean ?? bPrior[i]!);
  let tier = input.start?.tier ?? { level: 0, slope: priors.priceSlope };
  const va = priors.abilitySd ** 2;
  const vb = priors.difficultySd ** 2;
  const gA = new Float64Array(models.length);
  const hA = new Float64Array(models.length);
  const gB = new Float64Array(tasks.length);
  const hB = new Float64Array(tasks.length);
  const seen = new Float64Array(models.length);
  for (const o of obs) seen[o.m]! += o.w;
  const iterations = input.iterations ?? 40;
  for (let it = 0; it < iterations; it++) {
    tier = fitTier(a, x, seen, priors, tier);
    gA.fill(0);
    hA.fill(0);
    for (const o of obs) {
      const p = sigmoid(a[o.m]! - b[o.t]!);
      gA[o.m]! += o.w * (o.y - p);
      hA[o.m]! += o.w * p * (1 - p);
    }
    for (let m = 0; m < models.length; m++) {
      const mean = tier.level + tier.slope * x[m]!;
      a[m]! += (gA[m]! - (a[m]! - mean) / va) / (hA[m]! + 1 / va);
    }
    gB.fill(0);
    hB.fill(0);
    for (const o of obs) {
      const p = sigmoid(a[o.m]! - b[o.t]!);
      gB[o.t]! -= o.w * (o.y - p);
      hB[o.t]! += o.w * p * (1 - p);
    }
    for (let t = 0; t < tasks.length; t++) b[t]! += (gB[t]! - (b[t]! - bPrior[t]!) / vb) / (hB[t]! + 1 / vb);
  }
  // Laplace variances at the optimum.
  hA.fill(0);
  hB.fill(0);
  for (const o of obs) {
    const p = sigmoid(a[o.m]! - b[o.t]!);
    hA[o.m]! += o.w * p * (1 - p);
    hB[o.t]! += o.w * p * (1 - p);
  }
  return {
    abilities: new Map(models.map((m, i) => [m, { mean: a[i]!, variance: 1 / (hA[i]! + 1 / va) }])),
    difficulties: new Map(tasks.map((t, i) => [t, { mean: b[i]!, variance: 1 / (hB[i]! + 1 / vb) }])),
    tier,
  };
}

/**
 * The price-tier prior's level and slope: weighted least squares of the abilities on log cost over the models with
 * data (weight: their runs, capped), with the defaults (level 0, slope `priceSlope`) counting as `tierStrength` models.
 */
function fitTier(
  a: readonly number[],
  x: readonly number[],
  seen: Float64Array,
  priors: FitPriors,
  current: { level: number; slope: number },
): { level: number; slope: number } {
  let sw = priors.tierStrength;
  let sx = 0;
  let sy = 0;
  let sxx = priors.tierStrength;
  let sxy = priors.tierStrength * priors.priceSlope;
  let any = false;
  for (let m = 0; m < a.length; m++) {
    if (seen[m]! <= 0) continue;
    any = true;
    const w = Math.min(1, seen[m]! / 5);
    sw += w;
    sx += w * x[m]!;
    sy += w * a[m]!;
    sxx += w * x[m]! * x[m]!;
    sxy += w * x[m]! * a[m]!;
  }
  if (!any) return current;
  // Solve [sw sx; sx sxx] [level slope] = [sy sxy].
  const det = sw * sxx - sx * sx;
  if (det <= 1e-12) return current;
  return { level: (sy * sxx - sx * sxy) / det, slope: (sw * sxy - sx * sy) / det };
}
