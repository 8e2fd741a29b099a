/**
 * Priors for ability posteriors.
 *
 * - Population prior: mean and covariance of the known abilities. With fewer models than dimensions
 *   the sample covariance is singular, so it is shrunk toward a scaled identity:
 *   Sigma = (1 - s) S + s (tr(S)/d) I (s = `shrinkage`, default 0.2), then multiplied by
 *   {@link populationPrior}'s `inflate` option (default 1; the learner fits it uninflated and inflates
 *   only a new model's prior).
 * - Known model: N(theta_pretrained, knownScale * Sigma_pop). The residual uncertainty about a
 *   catalogued model is mostly distribution shift (a user's workload is not the benchmark), which
 *   scales with how different models are; `knownScale` (default 0.05) sets it as a fraction of the
 *   population spread. A trained artifact fits the scale on its training labels (known-prior.ts), and
 *   `OnlineLearner.forScorer` uses it.
 * - New model (`OnlineLearner.newModelPrior`): population mean, `inflate` (learner default 3) times the population
 *   covariance. Optionally conditioned on declared similar models (`addModel(id, { like })`,
 *   {@link similarModelsPrior}): mean = the mean of their prior means (for catalogued models, their
 *   pretrained abilities), covariance = the new-model prior's, inflation included.
 */
import type { GaussianPrior } from "./posterior.js";

/** Default weight of the scaled identity in the population covariance (learner option `shrinkage`). */
export const DEFAULT_SHRINKAGE = 0.2;

export interface PopulationPriorOptions {
  /** Weight of the scaled identity in the shrunk covariance, in [0, 1] (default 0.2). */
  readonly shrinkage?: number;
  /** Multiplier on the covariance (default 1). */
  readonly inflate?: number;
}

/** A Gaussian prior plus the count of abilities it was fitted on. */
export interface PopulationPrior extends GaussianPrior {
  readonly mean: Float64Array;
  readonly covariance: Float64Array;
  readonly nModels: number;
}

/**
 * Population prior from the known abilities.
 *
 * @example
 * ```ts
 * const prior = populationPrior(catalog.map((m) => m.ability));
 * const post = new AbilityPosterior(prior); // a brand-new model
 * ```
 */
export function populationPrior(
  abilities: readonly ArrayLike<number>[],
  options: PopulationPriorOptions = {},
): PopulationPrior {
  const n = abilities.length;
  if (n < 2) throw new RangeError(`populationPrior needs at least 2 known abilities, got ${n}`);
  const d = abilities[0]!.length;
  for (const [i, a] of abilities.entries()) {
    if (a.length !== d) throw new RangeError(`populationPrior: ability ${i} has length ${a.length}, expected ${d}`);
  }
  const shrinkage = options.shrinkage ?? DEFAULT_SHRINKAGE;
  const inflate = options.inflate ?? 1;
  if (!(shrinkage >= 0 && shrinkage <= 1)) throw new RangeError(`shrinkage must be in [0, 1], got ${shrinkage}`);
  if (!(inflate > 0)) throw new RangeError(`inflate must be > 0, got ${inflate}`);
  const mean = new Float64Array(d);
  for (const a of abilities) for (let k = 0; k < d; k++) mean[k] += a[k]! / n;
  const S = new Float64Array(d * d);
  for (const a of abilities) {
    for (let i = 0; i < d; i++) {
      const di = a[i]! - mean[i]!;
      for (let j = 0; j <= i; j++) S[i * d + j] += (di * (a[j]! - mean[j]!)) / (n - 1);
    }
  }
  let trace = 0;
  for (let i = 0; i < d; i++) trace += S[i * d + i]!;
  const iso = trace / d || 1e-6;
  const cov = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      const v = inflate * ((1 - shrinkage) * S[i * d + j]! + (i === j ? shrinkage * iso : 0));
      cov[i * d + j] = v;
      cov[j * d + i] = v;
    }
  }
  return { mean, covariance: cov, nModels: n };
}

/**
 * Prior of a catalogued model: its pretrained ability with `knownScale` times the population covariance.
 *
 * @example
 * ```ts
 * const prior = knownModelPrior(entry.ability, population, 0.05);
 * ```
 */
export function knownModelPrior(
  ability: ArrayLike<number>,
  population: GaussianPrior,
  knownScale = 0.05,
): GaussianPrior {
  if (!(knownScale > 0)) throw new RangeError(`knownScale must be > 0, got ${knownScale}`);
  if (ability.length !== population.mean.length) {
    throw new RangeError(
      `knownModelPrior: ability has length ${ability.length}, population prior has ${population.mean.length}`,
    );
  }
  const covariance = Float64Array.from(population.covariance, (v) => v * knownScale);
  return { mean: Float64Array.from(ability), covariance };
}

/**
 * How sure a placed ability is: the sd of the model's strength along `direction` (the change of the ability per
 * unit of strength), e.g. a current-models catalog prior placed on a scorer (`ModelPrior.sd`, `direction`).
 */
export interface AbilityPlacement {
  /** Sd of the strength (logits on an average item). */
  readonly sd: number;
  /** Ability change per unit of strength (length = the ability's). */
  readonly direction: ArrayLike<number>;
}

/**
 * Prior of a model placed by its strength alone (a catalog prior from published results, or the family and
 * price-tier rule), with no measured profile: mean `ability`, covariance that of `population` (the learner passes its
 * new-model prior: the model's profile is as unknown as a new model's, so exploration tries it as it would a new model)
 * plus `sd^2 direction direction^T` (the placement's own uncertainty about its strength).
 *
 * @example
 * ```ts
 * const prior = placedModelPrior(catalogPrior.ability, population, { sd: catalogPrior.sd, direction: catalogPrior.direction });
 * ```
 */
export function placedModelPrior(
  ability: ArrayLike<number>,
  population: GaussianPrior,
  placement: AbilityPlacement,
): GaussianPrior {
  const d = population.mean.length;
  if (ability.length !== d || placement.direction.length !== d) {
    throw new RangeError(
      `placedModelPrior: ability has length ${ability.length}, direction ${placement.direction.length}, the population prior ${d}`,
    );
  }
  if (!(placement.sd >= 0) || !Number.isFinite(placement.sd))
    throw new RangeError(`placedModelPrior: sd must be a finite number >= 0, got ${placement.sd}`);
  const v = placement.direction;
  const s2 = placement.sd * placement.sd;
  const covariance = Float64Array.from(population.covariance);
  for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) covariance[i * d + j] += s2 * v[i]! * v[j]!;
  return { mean: Float64Array.from(ability), covariance };
}

/**
 * @internal The prior of a model's explicit start (`OnlineLearner.addModel(id, { ability, placement })`): placed by
 * its strength around the new-model prior's spread ({@link placedModelPrior}) with a placement, else treated like a
 * catalogued model's ability.
 */
export function modelStartPrior(
  start: { readonly ability: ArrayLike<number>; readonly placement?: AbilityPlacement | undefined },
  population: GaussianPrior,
  knownScale: number,
  newModel: () => GaussianPrior,
): GaussianPrior {
  return start.placement
    ? placedModelPrior(start.ability, newModel(), start.placement)
    : knownModelPrior(start.ability, population, knownScale);
}

/**
 * Prior of a new model declared similar to some known ones: the mean of their abilities, and the covariance of
 * `base`, the prior the new model would get without the declaration (the declaration moves the guess, it does not
 * make it more certain). `OnlineLearner.addModel(id, { like })` passes its new-model prior as `base` (population
 * mean, `inflate` x population covariance) and the declared models' prior means (for catalogued models their pretrained
 * abilities; not what they have learned since, so a restore rebuilds the same prior). With no similar models, `base` itself.
 *
 * @example
 * ```ts
 * const prior = similarModelsPrior([llama70b.ability, llama8b.ability], learner.newModelPrior());
 * ```
 */
export function similarModelsPrior(similar: readonly ArrayLike<number>[], base: GaussianPrior): GaussianPrior {
  if (similar.length === 0) return base;
  const d = base.mean.length;
  const mean = new Float64Array(d);
  for (const a of similar) for (let k = 0; k < d; k++) mean[k] += a[k]! / similar.length;
  return { mean, covariance: Float64Array.from(base.covariance) };
}
