/**
 * The run-level model fitted to run outcomes: p(model m passes task t) = sigmoid(a_m - b_t), one ability per model and
 * one difficulty per task shared by every model (a Rasch model). Maximum a posteriori by alternating Newton steps,
 * with graded outcomes (a success rate) as soft labels. Abilities have a prior from the price tier
 * (a = level + slope * log(run cost / median run cost)), whose level and slope are themselves fitted to the models seen
 * so far and shrunk to the defaults; difficulties have a prior N(prior mean of the task, sd^2).
 */
import { sigmoid } from "../util/maths.js";
import type { Ability } from "./grid.js";

/**
 * One observed run: the task key, the model, the outcome in [0, 1], the weight it counts with and the task's hint
 * (its category), if any.
 */
export interface RunObservation {
  readonly task: string;
  readonly model: string;
  readonly outcome: number;
  readonly weight?: number;
  readonly hint?: string;
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
  /**
   * Largest prior sd of a model's ability offset on the tasks of one hint (category), around 0; the sd itself is
   * estimated from the data (EM), so hints that do not separate the models shrink towards 0.
   */
  readonly hintSd: number;
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
  /**
   * Trained priors (a run prior, `irt-router train --runs`): a model's ability prior N(mean, variance) replaces its
   * price-tier prior, and a (model, hint) offset's prior mean replaces 0.
   */
  readonly trained?: {
    readonly abilities: ReadonlyMap<string, Ability>;
    readonly hintOffsets: ReadonlyMap<string, Ability>;
    readonly hintVariance?: number;
  };
  readonly iterations?: number;
}

export interface FitResult {
  readonly abilities: Map<string, Ability>;
  /** Ability offset of a model on the tasks of a hint, keyed by {@link hintKey}; absent: 0. */
  readonly hintOffsets: Map<string, Ability>;
  /** Prior variance of the hint offsets as estimated from the data (at most `hintSd^2`). */
  readonly hintVariance: number;
  readonly difficulties: Map<string, { mean: number; variance: number }>;
  /** The price-tier prior: ability mean = level + slope * logCost. */
  readonly tier: { level: number; slope: number };
}

/** Key of a (model, hint) pair in {@link FitResult.hintOffsets}. */
export function hintKey(model: string, hint: string): string {
  return `${model}\u0000${hint}`;
}

/** A model's ability on a task of this hint: its ability plus its fitted offset on the hint's tasks (if any). */
export function withHint(ability: Ability, fit: FitResult, modelId: string, hint: string | undefined): Ability {
  const o = hint === undefined ? undefined : fit.hintOffsets.get(hintKey(modelId, hint));
  return o ? { mean: ability.mean + o.mean, variance: ability.variance + o.variance } : ability;
}

/**
 * Sd of a new task's difficulty: the spread of the fitted difficulties of past tasks and of a prior's tasks (their
 * uncertainty included), shrunk to `priorSd` as if that were the spread of 10 tasks.
 */
export function difficultySpread(
  fit: FitResult,
  priorTasks: readonly { readonly difficulty: number }[],
  priorSd: number,
): number {
  const d = [...fit.difficulties.values(), ...priorTasks.map((t) => ({ mean: t.difficulty, variance: 0 }))];
  if (d.length < 2) return priorSd;
  const mean = d.reduce((s, x) => s + x.mean, 0) / d.length;
  const ss = d.reduce((s, x) => s + (x.mean - mean) ** 2 + x.variance, 0);
  const k = 10;
  return Math.sqrt((ss + k * priorSd * priorSd) / (d.length + k));
}

/**
 * Run cost of the model rated most able among those with a price (the unit of the cost weight): a free model is no
 * unit, or every priced run would cost infinitely many of them. With no priced model, 1 (every cost is 0).
 */
export function referenceCost(
  models: readonly { readonly id: string; readonly runCost: number }[],
  fit: FitResult,
): number {
  let best: { readonly id: string; readonly runCost: number } | undefined;
  for (const m of models) {
    if (m.runCost <= 0) continue;
    if (!best || fit.abilities.get(m.id)!.mean > fit.abilities.get(best.id)!.mean) best = m;
  }
  return best?.runCost ?? 1;
}

/** Fit abilities and difficulties to the observations (see the module comment). */
export function fitRuns(input: FitInput): FitResult {
  const { observations, logCost, priors } = input;
  const models = [...logCost.keys()];
  const mIndex = new Map(models.map((m, i) => [m, i]));
  const tasks = [...new Set(observations.map((o) => o.task))];
  const tIndex = new Map(tasks.map((t, i) => [t, i]));
  const { hKeys, obs } = indexObservations(observations, mIndex, tIndex);
  // trained offsets without outcomes here are kept (at their prior mean)
  for (const k of input.trained?.hintOffsets.keys() ?? []) if (!hKeys.includes(k)) hKeys.push(k);
  const dPrior = hKeys.map((k) => input.trained?.hintOffsets.get(k)?.mean ?? 0);
  const d = hKeys.map((k, h) => input.start?.hintOffsets.get(k)?.mean ?? dPrior[h]!);
  // the offsets' prior variance, estimated from the data (EM), at most hintSd^2: hints that say nothing shrink to 0
  let vd = input.start?.hintVariance ?? input.trained?.hintVariance ?? priors.hintSd ** 2;
  const hD = new Float64Array(hKeys.length);
  const off = (h: number) => (h >= 0 ? d[h]! : 0);
  const x = models.map((m) => logCost.get(m)!);
  const aPrior = models.map((m) => input.trained?.abilities.get(m));
  const a = models.map((m, i) => input.start?.abilities.get(m)?.mean ?? aPrior[i]?.mean ?? 0);
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
  aPrior.forEach((p, m) => {
    if (p) seen[m]! += 5; // a trained model counts fully in the price-tier fit
  });
  const iterations = input.iterations ?? 40;
  for (let it = 0; it < iterations; it++) {
    tier = fitTier(a, x, seen, priors, tier);
    gA.fill(0);
    hA.fill(0);
    for (const o of obs) {
      const p = sigmoid(a[o.m]! + off(o.h) - b[o.t]!);
      gA[o.m]! += o.w * (o.y - p);
      hA[o.m]! += o.w * p * (1 - p);
    }
    for (let m = 0; m < models.length; m++) {
      const p = aPrior[m];
      const mean = p?.mean ?? tier.level + tier.slope * x[m]!;
      const v = p ? p.variance + TRAINED_DRIFT : va;
      a[m]! += (gA[m]! - (a[m]! - mean) / v) / (hA[m]! + 1 / v);
    }
    gB.fill(0);
    hB.fill(0);
    for (const o of obs) {
      const p = sigmoid(a[o.m]! + off(o.h) - b[o.t]!);
      gB[o.t]! -= o.w * (o.y - p);
      hB[o.t]! += o.w * p * (1 - p);
    }
    for (let t = 0; t < tasks.length; t++) b[t]! += (gB[t]! - (b[t]! - bPrior[t]!) / vb) / (hB[t]! + 1 / vb);
    if (hKeys.length > 0) vd = stepHintOffsets(obs, a, b, d, dPrior, vd, priors.hintSd ** 2);
  }
  // Laplace variances at the optimum.
  hA.fill(0);
  hB.fill(0);
  hD.fill(0);
  for (const o of obs) {
    const p = sigmoid(a[o.m]! + off(o.h) - b[o.t]!);
    hA[o.m]! += o.w * p * (1 - p);
    hB[o.t]! += o.w * p * (1 - p);
    if (o.h >= 0) hD[o.h]! += o.w * p * (1 - p);
  }
  return {
    abilities: new Map(
      models.map((m, i) => {
        const v = aPrior[i] ? aPrior[i].variance + TRAINED_DRIFT : va;
        return [m, { mean: a[i]!, variance: 1 / (hA[i]! + 1 / v) }];
      }),
    ),
    difficulties: new Map(tasks.map((t, i) => [t, { mean: b[i]!, variance: 1 / (hB[i]! + 1 / vb) }])),
    hintOffsets: new Map(hKeys.map((k, h) => [k, { mean: d[h]!, variance: 1 / (hD[h]! + 1 / vd) }])),
    hintVariance: vd,
    tier,
  };
}

interface IndexedObservation {
  readonly m: number;
  readonly t: number;
  /** Index of the (model, hint) pair, -1 without a hint. */
  readonly h: number;
  readonly y: number;
  readonly w: number;
}

/** The observations as indices, and the (model, hint) pairs they have, in order of first appearance. */
function indexObservations(
  observations: readonly RunObservation[],
  mIndex: ReadonlyMap<string, number>,
  tIndex: ReadonlyMap<string, number>,
): { hKeys: string[]; obs: IndexedObservation[] } {
  const hKeys: string[] = [];
  const hIndex = new Map<string, number>();
  const obs = observations
    .filter((o) => mIndex.has(o.model))
    .map((o) => {
      let h = -1;
      if (o.hint !== undefined) {
        const key = hintKey(o.model, o.hint);
        h = hIndex.get(key) ?? -1;
        if (h < 0) {
          h = hKeys.length;
          hIndex.set(key, h);
          hKeys.push(key);
        }
      }
      return { m: mIndex.get(o.model)!, t: tIndex.get(o.task)!, h, y: o.outcome, w: o.weight ?? 1 };
    });
  return { hKeys, obs };
}

/** Variance added to a trained ability's prior, so that new outcomes can move it (abilities drift between releases). */
const TRAINED_DRIFT = 0.05;

/**
 * A model's fitted ability as a run prior saves it (`trained`: its ability in the prior the router started from). For a
 * trained model, the precision its outcomes added to the trained prior kept, the
 * drift taken out. The drift is added once, when a router loads the prior; left in, every save and load would add it
 * again (a model without new outcomes lost 0.05 of precision on each restart, so its variance grew without end).
 */
export function savedAbility(fitted: Ability, trained: Ability | undefined): Ability {
  if (!trained) return { ...fitted };
  const fromOutcomes = Math.max(0, 1 / fitted.variance - 1 / (trained.variance + TRAINED_DRIFT));
  return { mean: fitted.mean, variance: 1 / (fromOutcomes + 1 / trained.variance) };
}

/** Floor of the hint offsets' prior variance (sd 0.05): a hint is never fully ignored once its data says otherwise. */
const MIN_HINT_VARIANCE = 0.0025;

/**
 * One Newton step of every (model, hint) offset under its prior N(0, vd), then the EM update of vd (the mean of the
 * offsets' squared means plus their posterior variances), kept in [MIN_HINT_VARIANCE, maxVd]. Returns the new vd.
 */
function stepHintOffsets(
  obs: readonly IndexedObservation[],
  a: readonly number[],
  b: readonly number[],
  d: number[],
  dPrior: readonly number[],
  vd: number,
  maxVd: number,
): number {
  const g = new Float64Array(d.length);
  const h2 = new Float64Array(d.length);
  for (const o of obs) {
    if (o.h < 0) continue;
    const p = sigmoid(a[o.m]! + d[o.h]! - b[o.t]!);
    g[o.h]! += o.w * (o.y - p);
    h2[o.h]! += o.w * p * (1 - p);
  }
  let second = 0;
  for (let h = 0; h < d.length; h++) {
    d[h]! += (g[h]! - (d[h]! - dPrior[h]!) / vd) / (h2[h]! + 1 / vd);
    second += (d[h]! - dPrior[h]!) ** 2 + 1 / (h2[h]! + 1 / vd);
  }
  return Math.min(maxVd, Math.max(MIN_HINT_VARIANCE, second / d.length));
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

/**
 * Each model's place on the price axis of the price-tier prior: log(run cost / the priced models' median). A free model
 * (run cost 0: self-hosted, or a price of 0) sits where the cheapest priced model does, not at log(0): the tier line is
 * fitted over the prices models have, and a free model's ability is no more predictable from its price than the
 * cheapest one's. With no priced model every place is 0.
 */
export function pricePositions(runCosts: readonly number[]): number[] {
  const priced = runCosts.filter((c) => c > 0);
  if (priced.length === 0) return runCosts.map(() => 0);
  const floor = Math.min(...priced);
  // The median of the priced models only, so that adding a free model moves no priced model's place.
  const median = Math.log(priced.sort((a, b) => a - b)[Math.floor(priced.length / 2)]!);
  return runCosts.map((c) => Math.log(Math.max(c, floor)) - median);
}
