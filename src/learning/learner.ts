/**
 * The online ability learner: one {@link AbilityPosterior} per model, fed {@link FeedbackEvent}s,
 * scoring candidates with uncertainty (predictive p, optional Thompson or UCB exploration).
 */
import { z } from "zod";
import { FeedbackError, IrtRouterError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { FeedbackEvent } from "./events.js";
import { AbilityPosterior, type CovarianceMode, type GaussianPrior, type PosteriorState, predictiveP, sigmoid } from "./posterior.js";
import type { KnownPrior } from "./known-prior.js";
import { DEFAULT_SHRINKAGE, knownModelPrior, populationPrior, similarModelsPrior, type PopulationPrior } from "./prior.js";
import { seededRng, type ExplorationRng } from "./rng.js";

/** Exploration rule used when choosing among candidates. */
export type Exploration = "none" | "thompson" | "ucb";

const forgettingSchema = z.union([
  z.object({ halfLifeEvents: z.number().positive() }).strict(),
  z.object({ halfLifeMs: z.number().positive() }).strict(),
]);

const learnerOptionsSchema = z
  .object({
    /** Forgetting half-life, per model: in that model's events, or in milliseconds of event time. Off by default. */
    forgetting: forgettingSchema.optional(),
    /**
     * Known-model covariance as a fraction of the population covariance (default 0.05; {@link OnlineLearner.forScorer}
     * uses the scale the scorer's artifact fitted on its training labels).
     */
    knownScale: z.number().positive().default(0.05),
    /** Shrinkage of the population covariance toward a scaled identity (default 0.2). */
    shrinkage: z.number().min(0).max(1).default(DEFAULT_SHRINKAGE),
    /**
     * Multiplier on the population covariance for a model the catalog does not know (default 3). The known
     * models are an older cohort: a new model is more likely than a random known one to lie outside their
     * range (usually above it), and a prior as narrow as the cohort makes Thompson sampling too timid to try it.
     */
    inflate: z.number().positive().default(3),
    /** What feedback for a model the learner does not know does: "error" (default) or "add" (start it at the population prior). */
    unknownModels: z.enum(["error", "add"]).default("error"),
    /** Covariance form; default full for d <= 64, diagonal above. */
    mode: z.enum(["full", "diagonal"]).optional(),
    /** Forgetting is applied in batches once the pending factor falls below 1 - decayTolerance (default 0.02). */
    decayTolerance: z.number().gt(0).lt(1).default(0.02),
    /** How many event ids are remembered for dedupe (oldest forgotten first; default 1,000,000). */
    maxRememberedIds: z.number().int().positive().default(1_000_000),
    /** Default exploration for {@link OnlineLearner.choose} (default "none"). */
    explore: z.enum(["none", "thompson", "ucb"]).default("none"),
    /** UCB width in logit standard deviations (default 2). */
    ucbKappa: z.number().nonnegative().default(2),
    /** Seed of the exploration generator (default 0). */
    seed: z.number().int().default(0),
  })
  .strict();

export type LearnerOptions = z.input<typeof learnerOptionsSchema>;

/** A catalogued model: id and pretrained ability. */
export interface KnownAbility {
  readonly id: string;
  readonly ability: ArrayLike<number>;
}

/** What {@link OnlineLearner.observe} did with an event. */
export type ObserveResult =
  /** The posterior absorbed it. */
  | "applied"
  /** An event with this id was applied before: nothing changed. */
  | "duplicate"
  /** The model was removed from the learner: documented no-op (old journals replay cleanly). */
  | "removed-model";

/** What {@link OnlineLearner.forScorer} reads from a scorer: its catalog and its fitted known-model prior. */
export interface ScorerPriorSource {
  readonly models: readonly KnownAbility[];
  readonly knownPrior?: KnownPrior;
}

/** One candidate's score for one query. */
export interface CandidateScore {
  readonly model: string;
  /** Predictive p(correct) (probit approximation over the posterior). */
  readonly p: number;
  /** Logit mean and standard deviation under the posterior. */
  readonly logitMean: number;
  readonly logitSd: number;
  /** The value the exploration rule ranks by (equals `p` without exploration). */
  readonly score: number;
}

/** Item parameters as the learner needs them. */
export interface LearnerItem {
  readonly alpha: ArrayLike<number>;
  readonly beta: number;
}

/** Serialisable learner state. */
export interface LearnerState {
  readonly version: 1;
  readonly dim: number;
  readonly population: { mean: number[]; covariance: number[]; nModels: number };
  readonly models: Record<string, { posterior: PosteriorState; pendingDecay: number; clock: number | null }>;
  readonly removed: string[];
  readonly seenIds: string[];
}

interface ModelEntry {
  posterior: AbilityPosterior;
  /** Forgetting not yet applied (a product of per-event factors). */
  pendingDecay: number;
  /** Latest event time seen for this model (time-based forgetting). */
  clock: number | null;
}

/**
 * Online learner of model abilities.
 *
 * @example
 * ```ts
 * const learner = OnlineLearner.forScorer(scorer, { forgetting: { halfLifeEvents: 500 }, explore: "thompson" });
 * const { alpha, beta } = await scorer.itemParams(query);
 * const model = learner.choose({ alpha, beta }, ["gpt-4o", "llama-3-8b"]);
 * learner.observe({ id: "run1:step3", model, alpha: Array.from(alpha), beta, y: 1, at: Date.now() });
 * ```
 */
export class OnlineLearner {
  readonly dim: number;
  readonly population: PopulationPrior;
  private readonly opts: z.output<typeof learnerOptionsSchema>;
  private readonly entries = new Map<string, ModelEntry>();
  private readonly removed = new Set<string>();
  private readonly seen = new Set<string>();
  private readonly rng: ExplorationRng;

  /**
   * @param known catalogued models (at least 2: their abilities fit the population prior)
   * @param restore internal: state from {@link OnlineLearner.exportState}; use {@link OnlineLearner.fromState}
   */
  constructor(known: readonly KnownAbility[], options: LearnerOptions = {}, restore?: LearnerState) {
    this.opts = parseWith(learnerOptionsSchema, options, "learnerOptions");
    this.rng = seededRng(this.opts.seed);
    if (restore) {
      this.population = {
        mean: Float64Array.from(restore.population.mean),
        covariance: Float64Array.from(restore.population.covariance),
        nModels: restore.population.nModels,
      };
      this.dim = restore.dim;
      for (const [id, m] of Object.entries(restore.models)) {
        this.entries.set(id, { posterior: AbilityPosterior.fromState(m.posterior), pendingDecay: m.pendingDecay, clock: m.clock });
      }
      for (const id of restore.removed) this.removed.add(id);
      for (const id of restore.seenIds) this.seen.add(id);
      return;
    }
    if (known.length < 2) {
      throw new FeedbackError(`OnlineLearner needs at least 2 known models to fit a population prior, got ${known.length}`, { path: "known" });
    }
    this.population = populationPrior(
      known.map((k) => k.ability),
      { shrinkage: this.opts.shrinkage },
    );
    this.dim = this.population.mean.length;
    for (const k of known) {
      if (this.entries.has(k.id)) throw new FeedbackError(`Duplicate model id "${k.id}" in the known abilities`, { path: "known" });
      this.entries.set(k.id, this.entry(new AbilityPosterior(knownModelPrior(k.ability, this.population, this.opts.knownScale), this.postOpts())));
    }
  }

  /** Ids of the models the learner currently tracks. */
  models(): string[] {
    return [...this.entries.keys()];
  }

  has(modelId: string): boolean {
    return this.entries.has(modelId);
  }

  /**
   * Adds a model: from a given ability (treated like a catalogued model), from the mean of
   * declared similar models (`like`), or from the population prior. Re-adding a removed model is allowed.
   */
  addModel(modelId: string, init: { ability?: ArrayLike<number>; like?: readonly string[] } = {}): AbilityPosterior {
    if (this.entries.has(modelId)) throw new FeedbackError(`Model "${modelId}" is already tracked`, { path: "modelId" });
    let prior;
    if (init.ability) {
      if (init.ability.length !== this.dim) throw new FeedbackError(`ability has length ${init.ability.length}, expected ${this.dim}`, { path: "ability" });
      prior = knownModelPrior(init.ability, this.population, this.opts.knownScale);
    } else if (init.like && init.like.length > 0) {
      prior = similarModelsPrior(init.like.map((id) => this.posterior(id).priorMeanVector()), this.newModelPrior());
    } else prior = this.newModelPrior();
    const post = new AbilityPosterior(prior, this.postOpts());
    this.entries.set(modelId, this.entry(post));
    this.removed.delete(modelId);
    return post;
  }

  /** Stops tracking a model; later feedback for it is a no-op reported as "removed-model". */
  removeModel(modelId: string): void {
    if (!this.entries.delete(modelId)) throw this.unknown(modelId);
    this.removed.add(modelId);
  }

  /** The posterior of a model (throws UNKNOWN_MODEL when it is not tracked). */
  posterior(modelId: string): AbilityPosterior {
    const e = this.entries.get(modelId);
    if (!e) throw this.unknown(modelId);
    return e.posterior;
  }

  /**
   * Absorbs one event. Malformed events throw {@link FeedbackError} and change nothing; a replayed
   * id returns "duplicate"; a removed model returns "removed-model"; an unknown model throws
   * UNKNOWN_MODEL unless `unknownModels: "add"`.
   */
  observe(event: FeedbackEvent): ObserveResult {
    this.validate(event);
    if (this.seen.has(event.id)) return "duplicate";
    let e = this.entries.get(event.model);
    if (!e) {
      if (this.removed.has(event.model)) return "removed-model";
      if (this.opts.unknownModels === "error") throw this.unknown(event.model);
      this.addModel(event.model);
      e = this.entries.get(event.model)!;
    }
    let weight = event.weight ?? 1;
    const f = this.opts.forgetting;
    if (f && "halfLifeEvents" in f) {
      e.pendingDecay *= Math.pow(2, -1 / f.halfLifeEvents);
    } else if (f && "halfLifeMs" in f) {
      if (e.clock === null) e.clock = event.at;
      else if (event.at > e.clock) {
        e.pendingDecay *= Math.pow(2, -(event.at - e.clock) / f.halfLifeMs);
        e.clock = event.at;
      } else weight *= Math.pow(2, -(e.clock - event.at) / f.halfLifeMs);
    }
    if (e.pendingDecay < 1 - this.opts.decayTolerance) {
      e.posterior.decay(e.pendingDecay);
      e.pendingDecay = 1;
    }
    e.posterior.update(event.alpha, event.beta, event.y, weight);
    this.remember(event.id);
    return "applied";
  }

  /** Whether an event id was already applied (and is still remembered). */
  hasSeen(eventId: string): boolean {
    return this.seen.has(eventId);
  }

  /**
   * Scores candidates for one query. `explore` overrides the learner's default:
   * "thompson" draws the logit from its posterior, "ucb" adds `ucbKappa` standard deviations.
   */
  score(item: LearnerItem, modelIds: readonly string[] = this.models(), explore: Exploration = this.opts.explore): CandidateScore[] {
    if (item.alpha.length !== this.dim) {
      throw new FeedbackError(`alpha has length ${item.alpha.length}, the learner's abilities have ${this.dim}`, { path: "item.alpha" });
    }
    return modelIds.map((model) => {
      const { mean, variance } = this.posterior(model).logit(item.alpha, item.beta);
      const sd = Math.sqrt(variance);
      const p = predictiveP(mean, variance);
      const score =
        explore === "thompson" ? sigmoid(mean + sd * this.rng.normal()) : explore === "ucb" ? sigmoid(mean + this.opts.ucbKappa * sd) : p;
      return { model, p, logitMean: mean, logitSd: sd, score };
    });
  }

  /** The candidate with the highest score (ties: first listed). Throws NO_CANDIDATES for an empty list. */
  choose(item: LearnerItem, candidates: readonly string[] = this.models(), explore: Exploration = this.opts.explore): string {
    if (candidates.length === 0) throw new IrtRouterError("NO_CANDIDATES", "choose() was given no candidate models; pass at least one model id.");
    const scores = this.score(item, candidates, explore);
    let best = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i]!.score > scores[best]!.score) best = i;
    return scores[best]!.model;
  }

  /** Serialisable snapshot of every posterior and the remembered event ids. */
  exportState(): LearnerState {
    const models: LearnerState["models"] = {};
    for (const [id, e] of this.entries) models[id] = { posterior: e.posterior.toState(), pendingDecay: e.pendingDecay, clock: e.clock };
    return {
      version: 1,
      dim: this.dim,
      population: { mean: Array.from(this.population.mean), covariance: Array.from(this.population.covariance), nModels: this.population.nModels },
      models,
      removed: [...this.removed],
      seenIds: [...this.seen],
    };
  }

  /**
   * A learner over a scorer's catalog, its known models starting at the prior the scorer's artifact fitted on
   * its training labels (`scorer.knownPrior`: scale and the shrinkage it was fitted with; see
   * docs/online.md). Options given explicitly win; a scorer without a fitted prior gets the defaults
   * (`knownScale` 0.05).
   *
   * @example
   * ```ts
   * const scorer = await loadPretrained();
   * const learner = OnlineLearner.forScorer(scorer, { explore: "thompson" });
   * ```
   */
  static forScorer(scorer: ScorerPriorSource, options: LearnerOptions = {}): OnlineLearner {
    return new OnlineLearner(scorer.models, OnlineLearner.optionsForScorer(scorer, options));
  }

  /**
   * The options {@link OnlineLearner.forScorer} uses: the scorer's fitted `knownScale` and `shrinkage` (when its
   * artifact has them) under `options`. Pass them to {@link OnlineLearner.fromState} too, so models added after a
   * restore start at the same prior.
   *
   * @example
   * ```ts
   * const options = OnlineLearner.optionsForScorer(scorer, { explore: "thompson" });
   * const learner = snapshot ? OnlineLearner.fromState(snapshot.state, options) : new OnlineLearner(scorer.models, options);
   * ```
   */
  static optionsForScorer(scorer: Pick<ScorerPriorSource, "knownPrior">, options: LearnerOptions = {}): LearnerOptions {
    const fitted = scorer.knownPrior ? { knownScale: scorer.knownPrior.scale, shrinkage: scorer.knownPrior.shrinkage } : {};
    return { ...fitted, ...options };
  }

  /** Restores a learner from {@link OnlineLearner.exportState} output (options as when it was created). */
  static fromState(state: LearnerState, options: LearnerOptions = {}): OnlineLearner {
    if (state?.version !== 1) throw new FeedbackError(`Unsupported learner state version ${String(state?.version)}; expected 1`, { path: "state.version" });
    return new OnlineLearner([], options, state);
  }

  /** Prior of a model the catalog does not know: population mean, `inflate` x population covariance. */
  newModelPrior(): GaussianPrior {
    return { mean: this.population.mean, covariance: Float64Array.from(this.population.covariance, (v) => v * this.opts.inflate) };
  }

  private entry(posterior: AbilityPosterior): ModelEntry {
    return { posterior, pendingDecay: 1, clock: null };
  }

  private postOpts(): { mode?: CovarianceMode } {
    return this.opts.mode ? { mode: this.opts.mode } : {};
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > this.opts.maxRememberedIds) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }

  private unknown(modelId: string): IrtRouterError {
    return new IrtRouterError(
      "UNKNOWN_MODEL",
      `Model "${modelId}" is not tracked by the learner. Known: ${this.models().slice(0, 8).join(", ")}${this.entries.size > 8 ? ", ..." : ""}. ` +
        `Add it with learner.addModel("${modelId}") or create the learner with unknownModels: "add".`,
      { details: { model: modelId } },
    );
  }

  private validate(event: FeedbackEvent): void {
    const bad = (path: string, what: string): never => {
      throw new FeedbackError(`Feedback event ${JSON.stringify(event?.id ?? null)}: ${what}`, { path: `event.${path}` });
    };
    if (typeof event !== "object" || event === null) bad("", "is not an object");
    if (typeof event.id !== "string" || event.id.length === 0) bad("id", "id must be a non-empty string");
    if (typeof event.model !== "string" || event.model.length === 0) bad("model", "model must be a non-empty string");
    if (!event.alpha || event.alpha.length !== this.dim) bad("alpha", `alpha must have length ${this.dim}, got ${event.alpha?.length}`);
    for (let i = 0; i < this.dim; i++) if (!Number.isFinite(event.alpha[i])) bad(`alpha.${i}`, `alpha[${i}] is ${event.alpha[i]}, must be finite`);
    if (!Number.isFinite(event.beta)) bad("beta", `beta is ${event.beta}, must be finite`);
    if (!Number.isFinite(event.y) || event.y < 0 || event.y > 1) bad("y", `outcome y is ${event.y}; it must be a finite number in [0, 1] (1 = correct)`);
    if (event.weight !== undefined && !(Number.isFinite(event.weight) && event.weight > 0 && event.weight <= 1)) {
      bad("weight", `weight is ${event.weight}; it must be in (0, 1]`);
    }
    if (!Number.isFinite(event.at)) bad("at", `at is ${event.at}; it must be epoch milliseconds`);
  }
}
