/**
 * The online ability learner: one {@link AbilityPosterior} per model, fed {@link FeedbackEvent}s,
 * scoring candidates with uncertainty (predictive p, optional Thompson or UCB exploration).
 */
import { z } from "zod";
import { FeedbackError, IrtRouterError, ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { assertFeedbackEvent, DEFAULT_ITEM_BOUNDS, itemBoundsSchema } from "./event-check.js";
import type { FeedbackEvent } from "./events.js";
import {
  AbilityPosterior,
  type CovarianceMode,
  type GaussianPrior,
  type PosteriorState,
  predictiveP,
  sigmoid,
} from "./posterior.js";
import type { KnownPrior } from "./known-prior.js";
import {
  DEFAULT_SHRINKAGE,
  knownModelPrior,
  populationPrior,
  similarModelsPrior,
  type PopulationPrior,
} from "./prior.js";
import { seededRng, type Rng } from "../util/random.js";
import { TaskOffsets, type TaskOffsetsState } from "./task-offsets.js";

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
    /**
     * Default exploration for {@link OnlineLearner.choose} and {@link OnlineLearner.score} (default "thompson": a model
     * whose estimate fell is still sampled in proportion to its chance of being best, so it can come back when the
     * feedback that lowered it was wrong; with "none" it may never be routed to again. docs/online.md gives the figures).
     */
    explore: z.enum(["none", "thompson", "ucb"]).default("thompson"),
    /** UCB width in logit standard deviations (default 2). */
    ucbKappa: z.number().nonnegative().default(2),
    /** Seed of the exploration generator (default 0). */
    seed: z.number().int().default(0),
    /**
     * Largest plausible item parameters of an event (`|alpha|` and `|beta|`); an event beyond them is refused with a
     * FeedbackError (default `DEFAULT_ITEM_BOUNDS`, derived from the pretrained scorer: see docs/online.md).
     */
    itemBounds: itemBoundsSchema.default(DEFAULT_ITEM_BOUNDS),
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
  /** Task hint of the call: the (model, task) offset learned from feedback is added to the logit (task-offsets.ts). */
  readonly task?: string;
}

/** What {@link OnlineLearner.restore} reads: the result of an `AbilityStore`'s `load()`. */
export interface RestoreSource {
  readonly snapshot?: { readonly state: unknown };
  readonly events: readonly FeedbackEvent[];
}

/** Membership changes of the live learner that the event journal does not record (see {@link OnlineLearner.restore}). */
export interface RestoreMembership {
  /** Models added with an ability or `like` (a model added at the new-model prior needs no entry). */
  readonly added?: readonly {
    readonly id: string;
    readonly ability?: ArrayLike<number>;
    readonly like?: readonly string[];
  }[];
  /** Models removed with `removeModel`. */
  readonly removed?: readonly string[];
}

/** Serialisable learner state. */
export interface LearnerState {
  readonly version: 1;
  readonly dim: number;
  readonly population: { mean: number[]; covariance: number[]; nModels: number };
  readonly models: Record<string, { posterior: PosteriorState; pendingDecay: number; clock: number | null }>;
  readonly removed: string[];
  readonly seenIds: string[];
  /** Per-(model, task) offsets learned from events with a `task`; absent when none was seen. */
  readonly taskOffsets?: TaskOffsetsState;
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
  /** Per-(model, task) offsets learned from events with a task hint. */
  private readonly tasks: TaskOffsets;
  private readonly opts: z.output<typeof learnerOptionsSchema>;
  private readonly entries = new Map<string, ModelEntry>();
  private readonly removed = new Set<string>();
  private readonly seen = new Set<string>();
  private readonly rng: Rng;

  /**
   * @param known catalogued models (at least 2: their abilities fit the population prior)
   * @param restore internal: state from {@link OnlineLearner.exportState}; use {@link OnlineLearner.fromState}
   */
  constructor(known: readonly KnownAbility[], options: LearnerOptions = {}, restore?: LearnerState) {
    this.opts = parseWith(learnerOptionsSchema, options, "learnerOptions");
    this.rng = seededRng(this.opts.seed);
    this.tasks = TaskOffsets.fromState(restore?.taskOffsets);
    if (restore) {
      this.population = {
        mean: Float64Array.from(restore.population.mean),
        covariance: Float64Array.from(restore.population.covariance),
        nModels: restore.population.nModels,
      };
      this.dim = restore.dim;
      for (const [id, m] of Object.entries(restore.models)) {
        let posterior: AbilityPosterior;
        try {
          posterior = AbilityPosterior.fromState(m.posterior);
        } catch (err) {
          throw new ValidationError(
            `Invalid learner state: state.models.${id}.posterior cannot be restored (${(err as Error).message}).`,
            {
              path: `state.models.${id}.posterior`,
              cause: err,
            },
          );
        }
        this.entries.set(id, { posterior, pendingDecay: m.pendingDecay, clock: m.clock });
      }
      for (const id of restore.removed) this.removed.add(id);
      for (const id of restore.seenIds) this.seen.add(id);
      return;
    }
    if (known.length < 2) {
      throw new FeedbackError(
        `OnlineLearner needs at least 2 known models to fit a population prior, got ${known.length}`,
        { path: "known" },
      );
    }
    this.population = populationPrior(
      known.map((k) => k.ability),
      { shrinkage: this.opts.shrinkage },
    );
    this.dim = this.population.mean.length;
    for (const k of known) {
      if (this.entries.has(k.id))
        throw new FeedbackError(`Duplicate model id "${k.id}" in the known abilities`, { path: "known" });
      this.entries.set(
        k.id,
        this.entry(
          new AbilityPosterior(knownModelPrior(k.ability, this.population, this.opts.knownScale), this.postOpts()),
        ),
      );
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
   * declared similar models (`like`), or from the population prior.
   *
   * A removed model cannot be added back under the same id (FeedbackError, path `modelId`, `details.removed`): events
   * carry only the model id, and neither they nor the store record when the model was removed and re-added, so a
   * restore would replay the events from before the removal into the new posterior. Add it under a new id instead
   * (the old id's journaled events stay no-ops).
   */
  addModel(modelId: string, init: { ability?: ArrayLike<number>; like?: readonly string[] } = {}): AbilityPosterior {
    this.checkAddModel(modelId, init);
    if (this.entries.has(modelId))
      throw new FeedbackError(`Model "${modelId}" is already tracked`, { path: "modelId" });
    if (this.removed.has(modelId)) {
      throw new FeedbackError(
        `Model "${modelId}" was removed (removeModel) and cannot be added back under the same id: the event journal does not record when ` +
          `a model was removed or re-added, so a restore would replay its events from before the removal into the new posterior. ` +
          `Add it under a new id (e.g. "${modelId}@2"); the old id's events stay no-ops.`,
        { path: "modelId", details: { model: modelId, removed: true } },
      );
    }
    let prior;
    if (init.ability) {
      prior = knownModelPrior(init.ability, this.population, this.opts.knownScale);
    } else if (init.like && init.like.length > 0) {
      prior = similarModelsPrior(
        init.like.map((id) => this.posterior(id).priorMeanVector()),
        this.newModelPrior(),
      );
    } else prior = this.newModelPrior();
    const post = new AbilityPosterior(prior, this.postOpts());
    this.entries.set(modelId, this.entry(post));
    return post;
  }

  /** The arguments of {@link OnlineLearner.addModel}, checked: a FeedbackError naming `modelId`, `ability.<i>` or `like`. */
  private checkAddModel(modelId: unknown, init: unknown): void {
    const bad = (path: string, what: string): never => {
      throw new FeedbackError(`addModel(${JSON.stringify(modelId) ?? String(modelId)}): ${path} ${what}`, { path });
    };
    if (typeof modelId !== "string" || modelId.trim().length === 0)
      bad("modelId", "must be a non-empty string (the model's id)");
    if (typeof init !== "object" || init === null || Array.isArray(init))
      return bad("init", "must be an object such as { ability } or { like }");
    const { ability, like } = init as { ability?: unknown; like?: unknown };
    if (ability !== undefined) {
      const a = ability as ArrayLike<unknown> | null;
      if (typeof a !== "object" || a === null || typeof a.length !== "number")
        bad("ability", `must be an array of ${this.dim} finite numbers`);
      if (a!.length !== this.dim) bad("ability", `has length ${a!.length}, expected ${this.dim}`);
      for (let i = 0; i < this.dim; i++)
        if (!Number.isFinite(a![i])) bad(`ability.${i}`, `is ${String(a![i])}, must be a finite number`);
    }
    if (like !== undefined) {
      if (!Array.isArray(like)) bad("like", `must be an array of tracked model ids, got ${typeof like}`);
      (like as unknown[]).forEach((id, i) => {
        if (typeof id !== "string" || !this.entries.has(id))
          bad(`like.${i}`, `is ${JSON.stringify(id)}, not a model the learner tracks`);
      });
    }
  }

  /**
   * Stops tracking a model; later feedback for it is a no-op reported as "removed-model". Removing a model that is
   * already removed is a no-op (so a restore can re-apply removals); an id never tracked throws UNKNOWN_MODEL.
   * Removals are part of {@link OnlineLearner.exportState}; a journal replayed without a snapshot that has them needs
   * them re-applied first ({@link OnlineLearner.restore} `removed`).
   */
  removeModel(modelId: string): void {
    if (this.removed.has(modelId) && !this.entries.has(modelId)) return;
    if (!this.entries.delete(modelId)) throw this.unknown(modelId);
    this.removed.add(modelId);
    this.tasks.remove(modelId);
  }

  /** Whether `modelId` was removed with {@link OnlineLearner.removeModel} (it cannot be added back under that id). */
  isRemoved(modelId: string): boolean {
    return this.removed.has(modelId);
  }

  /** Ids of the models removed with {@link OnlineLearner.removeModel} (a removed id stays removed). */
  removedModels(): string[] {
    return [...this.removed];
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
   * UNKNOWN_MODEL unless `unknownModels: "add"`. Atomic: when it throws, nothing changed (not the
   * posterior, its forgetting clock, nor the remembered ids).
   */
  observe(event: FeedbackEvent): ObserveResult {
    return this.apply(event, this.opts.unknownModels === "add");
  }

  /**
   * What {@link OnlineLearner.observe} would do with `event`, without doing it: throws the same
   * {@link FeedbackError} (malformed, out-of-bound or non-finite-making event) or UNKNOWN_MODEL error, else returns
   * the {@link ObserveResult} it would give now. Call it before journaling an event, so that a store never holds an
   * event the learner rejects (every later replay would throw on it). The router's `feedback()` and
   * `calibrateModel` do. The non-finite check runs against the posterior as it is, without a forgetting decay that
   * `observe` would apply first: within the item-parameter bound, a decay cannot make an accepted update overflow
   * from any posterior the learner reaches in use (only a hand-made state with a prior precision near 1e-300 can).
   */
  check(event: FeedbackEvent): ObserveResult {
    this.validate(event);
    if (this.seen.has(event.id)) return "duplicate";
    const e = this.entries.get(event.model);
    if (!e) {
      if (this.removed.has(event.model)) return "removed-model";
      if (this.opts.unknownModels === "error") throw this.unknown(event.model);
    }
    this.wrapUpdateError(event, () =>
      (e?.posterior ?? this.newPosterior()).checkUpdate(event.alpha, event.beta, event.y, event.weight ?? 1),
    );
    return "applied";
  }

  private apply(event: FeedbackEvent, addUnknown: boolean): ObserveResult {
    this.validate(event);
    if (this.seen.has(event.id)) return "duplicate";
    let e = this.entries.get(event.model);
    const isNew = !e;
    if (!e) {
      if (this.removed.has(event.model)) return "removed-model";
      if (!addUnknown) throw this.unknown(event.model);
      e = this.entry(this.newPosterior());
    }
    // Forgetting, planned without touching the entry. A factor that underflows to 0 (a gap of more than ~1075
    // half-lives) is the exact limit: the data part decays fully and the posterior is back at its prior.
    let weight = event.weight ?? 1;
    let pending = e.pendingDecay;
    let clock = e.clock;
    const f = this.opts.forgetting;
    if (f && "halfLifeEvents" in f) {
      pending *= Math.pow(2, -1 / f.halfLifeEvents);
    } else if (f && "halfLifeMs" in f) {
      if (clock === null) clock = event.at;
      else if (event.at > clock) {
        pending *= Math.pow(2, -(event.at - clock) / f.halfLifeMs);
        clock = event.at;
      } else weight *= Math.pow(2, -(clock - event.at) / f.halfLifeMs);
    }
    const post = e.posterior;
    const decayNow = pending < 1 - this.opts.decayTolerance;
    const backup = decayNow ? post.saveData() : undefined;
    if (decayNow) post.decay(pending);
    const baseLogit = event.task !== undefined ? post.logit(event.alpha, event.beta).mean : 0;
    try {
      this.wrapUpdateError(event, () => post.update(event.alpha, event.beta, event.y, weight));
    } catch (err) {
      if (backup) post.restoreData(backup);
      throw err;
    }
    e.pendingDecay = decayNow ? 1 : pending;
    e.clock = clock;
    if (isNew) this.entries.set(event.model, e);
    this.remember(event.id);
    if (event.task !== undefined) this.tasks.observe(event.model, event.task, baseLogit, event.y, weight);
    return "applied";
  }

  /** Runs a posterior update (or its check), naming the event in a FeedbackError it throws. */
  private wrapUpdateError(event: FeedbackEvent, run: () => void): void {
    try {
      run();
    } catch (err) {
      if (err instanceof FeedbackError) {
        throw new FeedbackError(`Feedback event ${JSON.stringify(event.id)}: ${err.message}`, {
          path: err.path,
          details: err.details,
          cause: err,
        });
      }
      throw err;
    }
  }

  /** Whether an event id was already applied (and is still remembered). */
  hasSeen(eventId: string): boolean {
    return this.seen.has(eventId);
  }

  /**
   * Scores candidates for one query. `explore` overrides the learner's default:
   * "thompson" draws the logit from its posterior, "ucb" adds `ucbKappa` standard deviations.
   */
  score(
    item: LearnerItem,
    modelIds: readonly string[] = this.models(),
    explore: Exploration = this.opts.explore,
  ): CandidateScore[] {
    if (item.alpha.length !== this.dim) {
      throw new FeedbackError(`alpha has length ${item.alpha.length}, the learner's abilities have ${this.dim}`, {
        path: "item.alpha",
      });
    }
    return modelIds.map((model) => {
      const base = this.posterior(model).logit(item.alpha, item.beta);
      const offset = item.task !== undefined ? this.tasks.offset(model, item.task) : { mean: 0, variance: 0 };
      const mean = base.mean + offset.mean;
      const variance = base.variance + offset.variance;
      const sd = Math.sqrt(variance);
      const p = predictiveP(mean, variance);
      const score =
        explore === "thompson"
          ? sigmoid(mean + sd * this.rng.normal())
          : explore === "ucb"
            ? sigmoid(mean + this.opts.ucbKappa * sd)
            : p;
      return { model, p, logitMean: mean, logitSd: sd, score };
    });
  }

  /** The candidate with the highest score (ties: first listed). Throws NO_CANDIDATES for an empty list. */
  choose(
    item: LearnerItem,
    candidates: readonly string[] = this.models(),
    explore: Exploration = this.opts.explore,
  ): string {
    if (candidates.length === 0)
      throw new IrtRouterError("NO_CANDIDATES", "choose() was given no candidate models; pass at least one model id.");
    const scores = this.score(item, candidates, explore);
    // NaN never wins (a NaN compares false both ways, so a NaN first candidate would otherwise never be displaced).
    let best = -1;
    for (let i = 0; i < scores.length; i++) {
      const v = scores[i]!.score;
      if (!Number.isNaN(v) && (best < 0 || v > scores[best]!.score)) best = i;
    }
    if (best < 0) {
      throw new FeedbackError(
        `choose(): every candidate's score is NaN for this item (alpha length ${item.alpha.length}, beta ${item.beta}); its parameters are not usable item parameters.`,
        { path: "item" },
      );
    }
    return scores[best]!.model;
  }

  /** Serialisable snapshot of every posterior and the remembered event ids. */
  exportState(): LearnerState {
    // Object.fromEntries defines own properties, so a model named "__proto__" is kept (an assignment would set the prototype).
    const models: LearnerState["models"] = Object.fromEntries(
      [...this.entries].map(([id, e]) => [
        id,
        { posterior: e.posterior.toState(), pendingDecay: e.pendingDecay, clock: e.clock },
      ]),
    );
    return {
      version: 1,
      dim: this.dim,
      population: {
        mean: Array.from(this.population.mean),
        covariance: Array.from(this.population.covariance),
        nModels: this.population.nModels,
      },
      models,
      removed: [...this.removed],
      seenIds: [...this.seen],
      ...(this.tasks.size > 0 ? { taskOffsets: this.tasks.exportState() } : {}),
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
   * artifact has them) under `options`. Pass them to {@link OnlineLearner.restore} / {@link OnlineLearner.fromState}
   * too, so models added after a restore start at the same prior.
   *
   * @example
   * ```ts
   * const options = OnlineLearner.optionsForScorer(scorer, { explore: "thompson" });
   * const learner = OnlineLearner.restore(await store.load(), scorer.models, options);
   * ```
   */
  static optionsForScorer(scorer: Pick<ScorerPriorSource, "knownPrior">, options: LearnerOptions = {}): LearnerOptions {
    const fitted = scorer.knownPrior
      ? { knownScale: scorer.knownPrior.scale, shrinkage: scorer.knownPrior.shrinkage }
      : {};
    return { ...fitted, ...options };
  }

  /**
   * Restores a learner from {@link OnlineLearner.exportState} output (options as when it was created). The state
   * is checked first: a malformed one (wrong version, a posterior whose dim or array lengths do not match the
   * state's dim, non-finite numbers, ...) throws a {@link ValidationError} whose `path` names the field
   * (`state.models.gpt-4o.posterior.dim`).
   */
  static fromState(state: unknown, options: LearnerOptions = {}): OnlineLearner {
    return new OnlineLearner([], options, checkLearnerState(state));
  }

  /**
   * Rebuilds the live learner from what an `AbilityStore` holds (`await store.load()`): starts from the
   * snapshot's state (or fresh from `known` without one), re-applies the membership changes the journal does not
   * record, then replays the events after the snapshot. Gives the live learner's posteriors (to rounding) provided
   * every journaled event was first accepted by {@link OnlineLearner.check}:
   *
   * - an event for a model that is neither known, in the snapshot, nor removed is taken to be for a model the live
   *   learner added at the new-model prior (the router adds models outside the catalog so), and that model is
   *   added the same way, whatever `unknownModels` says (it applies to live events only);
   * - `membership.added`: models the live learner added with an `ability` or `like` (re-added before the replay
   *   unless already tracked, or removed: a removed id stays removed);
   * - `membership.removed`: models the live learner removed (re-removed before the replay, so their journaled
   *   events stay no-ops, as they were live; the snapshot records removals it covers).
   *
   * @example
   * ```ts
   * const learner = OnlineLearner.restore(await store.load(), scorer.models, OnlineLearner.optionsForScorer(scorer), { removed: ["old-model"] });
   * ```
   */
  static restore(
    source: RestoreSource,
    known: readonly KnownAbility[],
    options: LearnerOptions = {},
    membership: RestoreMembership = {},
  ): OnlineLearner {
    const learner = source.snapshot
      ? OnlineLearner.fromState(source.snapshot.state, options)
      : new OnlineLearner(known, options);
    const removed = new Set(membership.removed ?? []);
    for (const a of membership.added ?? [])
      if (!learner.has(a.id) && !learner.removed.has(a.id) && !removed.has(a.id)) learner.addModel(a.id, a);
    for (const id of membership.removed ?? []) {
      learner.entries.delete(id);
      learner.removed.add(id);
    }
    for (const event of source.events) learner.apply(event, true);
    return learner;
  }

  /** Prior of a model the catalog does not know: population mean, `inflate` x population covariance. */
  newModelPrior(): GaussianPrior {
    return {
      mean: this.population.mean,
      covariance: Float64Array.from(this.population.covariance, (v) => v * this.opts.inflate),
    };
  }

  private newPosterior(): AbilityPosterior {
    return new AbilityPosterior(this.newModelPrior(), this.postOpts());
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
    const id = (event as { id?: unknown } | null)?.id;
    assertFeedbackEvent(
      event,
      { dim: this.dim, itemBounds: this.opts.itemBounds },
      {
        prefix: "event",
        label: `Feedback event ${JSON.stringify(typeof id === "string" ? id : null)}`,
      },
    );
  }
}

/**
 * Checks a {@link LearnerState} (from JSON, so untrusted) field by field; throws a ValidationError naming the
 * first bad field (`state.models.<id>.posterior.dataEta.3`).
 */
/** A value of an untrusted state, for a message: never throws (an object without a prototype has no toString). */
function show(v: unknown): string {
  if (typeof v !== "object" || v === null) return String(v);
  try {
    return JSON.stringify(v)?.slice(0, 40) ?? typeof v;
  } catch {
    return typeof v;
  }
}

function checkLearnerState(state: unknown): LearnerState {
  const bad = (path: string, what: string): never => {
    throw new ValidationError(
      `Invalid learner state: ${path} ${what}. Restore from a state written by learner.exportState().`,
      { path },
    );
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  const finiteArray = (v: unknown, n: number, path: string): number[] => {
    if (!Array.isArray(v)) return bad(path, `must be an array of ${n} finite numbers`);
    if (v.length !== n) return bad(path, `has ${v.length} numbers, expected ${n}`);
    v.forEach((x, i) => Number.isFinite(x) || bad(`${path}.${i}`, `is ${show(x)}, must be a finite number`));
    return v as number[];
  };
  const stringArray = (v: unknown, path: string): string[] => {
    if (!Array.isArray(v)) return bad(path, "must be an array of strings");
    v.forEach((x, i) => typeof x === "string" || bad(`${path}.${i}`, "must be a string"));
    return v as string[];
  };
  if (!isObject(state)) return bad("state", "must be an object (the output of learner.exportState())");
  if (state.version !== 1) return bad("state.version", `is ${show(state.version)}; this library reads version 1`);
  const dim = state.dim;
  if (typeof dim !== "number" || !Number.isInteger(dim) || dim < 1)
    return bad("state.dim", `is ${show(dim)}, must be a positive integer`);
  const pop = state.population;
  if (!isObject(pop)) return bad("state.population", "must be an object");
  const mean = finiteArray(pop.mean, dim, "state.population.mean");
  const covariance = finiteArray(pop.covariance, dim * dim, "state.population.covariance");
  if (typeof pop.nModels !== "number" || !Number.isInteger(pop.nModels) || pop.nModels < 0) {
    return bad("state.population.nModels", `is ${show(pop.nModels)}, must be a non-negative integer`);
  }
  try {
    new AbilityPosterior({ mean, covariance });
  } catch (err) {
    return bad("state.population.covariance", `is not a usable covariance (${(err as Error).message})`);
  }
  if (!isObject(state.models)) return bad("state.models", "must be an object keyed by model id");
  for (const [id, m] of Object.entries(state.models)) {
    const at = `state.models.${id}`;
    if (id.trim().length === 0) return bad(at, "has an empty model id");
    if (!isObject(m)) return bad(at, "must be an object");
    const p = m.posterior;
    if (!isObject(p)) return bad(`${at}.posterior`, "must be an object");
    if (p.version !== 1) return bad(`${at}.posterior.version`, `is ${show(p.version)}, expected 1`);
    if (p.dim !== dim) return bad(`${at}.posterior.dim`, `is ${show(p.dim)}, but the state's dim is ${dim}`);
    if (p.mode !== "full" && p.mode !== "diagonal")
      return bad(`${at}.posterior.mode`, `is ${show(p.mode)}, expected "full" or "diagonal"`);
    const size = p.mode === "full" ? dim * dim : dim;
    finiteArray(p.priorMean, dim, `${at}.posterior.priorMean`);
    finiteArray(p.priorPrecision, size, `${at}.posterior.priorPrecision`);
    finiteArray(p.dataPrecision, size, `${at}.posterior.dataPrecision`);
    finiteArray(p.dataEta, dim, `${at}.posterior.dataEta`);
    if (typeof p.evidence !== "number" || !Number.isFinite(p.evidence) || p.evidence < 0) {
      return bad(`${at}.posterior.evidence`, `is ${show(p.evidence)}, must be a finite number >= 0`);
    }
    // 0 is accepted: it is the limit of a decay that underflowed (the next event resets the data part).
    if (typeof m.pendingDecay !== "number" || !(m.pendingDecay >= 0 && m.pendingDecay <= 1)) {
      return bad(`${at}.pendingDecay`, `is ${show(m.pendingDecay)}, must be a number in [0, 1]`);
    }
    if (m.clock !== null && !Number.isFinite(m.clock))
      return bad(`${at}.clock`, `is ${show(m.clock)}, must be null or a finite number`);
  }
  stringArray(state.removed, "state.removed");
  stringArray(state.seenIds, "state.seenIds");
  return state as unknown as LearnerState;
}
