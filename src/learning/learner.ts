/**
 * The online ability learner: one {@link AbilityPosterior} per model, fed {@link FeedbackEvent}s,
 * scoring candidates with uncertainty (predictive p, optional Thompson or UCB exploration).
 */
import type { z } from "zod";
import { FeedbackError, IrtRouterError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { FeedbackEvent } from "./events.js";
import { AbilityPosterior, type CovarianceMode, type GaussianPrior, predictiveP, sigmoid } from "./posterior.js";
import { modelStartPrior, populationPrior, similarModelsPrior, type PopulationPrior } from "./prior.js";
import { seededRng, type Rng } from "../util/random.js";
import { TaskOffsets } from "./task-offsets.js";
import { planForgetting } from "./forgetting.js";
import { checkAddModelArgs, checkLearnerEvent, unknownModelError } from "./learner-checks.js";
import { checkLearnerState, exportLearnerState, restoredParts } from "./learner-state.js";
import {
  learnerOptionsSchema,
  type CandidateScore,
  type Exploration,
  type KnownAbility,
  type LearnerItem,
  type LearnerOptions,
  type LearnerState,
  type ModelEntry,
  type ModelStart,
  type ObserveResult,
  type RestoreMembership,
  type RestoreSource,
  type ScorerPriorSource,
} from "./learner-types.js";

export type {
  CandidateScore,
  Exploration,
  KnownAbility,
  LearnerItem,
  LearnerOptions,
  LearnerState,
  ModelStart,
  ObserveResult,
  RestoreMembership,
  RestoreSource,
  ScorerPriorSource,
} from "./learner-types.js";

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
      const parts = restoredParts(restore);
      this.population = parts.population;
      this.dim = restore.dim;
      for (const [id, entry] of parts.entries) this.entries.set(id, entry);
      for (const id of restore.removed) this.removed.add(id);
      for (const id of restore.seenIds) this.remember(id); // the last maxRememberedIds of an older, longer list
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
      const prior = this.startPrior({ ability: k.ability });
      this.entries.set(k.id, this.entry(new AbilityPosterior(prior, this.postOpts())));
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
   * Adds a model: from a given ability (treated like a catalogued model; with `placement`, an ability placed by its
   * strength alone, such as a current-models catalog prior), from the mean of declared similar models (`like`), or,
   * with none of these, from the `modelPriors` option's start for the id, else the new-model prior.
   *
   * A removed model cannot be added back under the same id (FeedbackError, path `modelId`, `details.removed`): events
   * carry only the model id, and neither they nor the store record when the model was removed and re-added, so a
   * restore would replay the events from before the removal into the new posterior. Add it under a new id instead
   * (the old id's journaled events stay no-ops).
   */
  addModel(modelId: string, init: Partial<ModelStart> & { like?: readonly string[] } = {}): AbilityPosterior {
    checkAddModelArgs(modelId, init, this.dim, (id) => this.entries.has(id));
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
      prior = this.startPrior({ ...init, ability: init.ability });
    } else if (init.like && init.like.length > 0) {
      prior = similarModelsPrior(
        init.like.map((id) => this.posterior(id).priorMeanVector()),
        this.newModelPrior(),
      );
    } else prior = this.newModelPrior(modelId);
    const post = new AbilityPosterior(prior, this.postOpts());
    this.entries.set(modelId, this.entry(post));
    return post;
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
      (e?.posterior ?? this.newPosterior(event.model)).checkUpdate(event.alpha, event.beta, event.y, event.weight ?? 1),
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
      e = this.entry(this.newPosterior(event.model));
    }
    // Forgetting, planned without touching the entry.
    const { weight, pending, clock } = planForgetting(e, event, this.opts.forgetting);
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
    return exportLearnerState(this.dim, this.population, this.entries, this.removed, this.seen, this.tasks);
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

  /** Prior of a model added without a start: `modelPriors`' for `modelId`, else the population's, `inflate` x wider. */
  newModelPrior(modelId?: string): GaussianPrior {
    const start = modelId === undefined ? undefined : this.opts.modelPriors?.(modelId);
    if (start) checkAddModelArgs(modelId, start, this.dim, (id) => this.entries.has(id));
    if (start) return this.startPrior(start);
    return {
      mean: this.population.mean,
      covariance: Float64Array.from(this.population.covariance, (v) => v * this.opts.inflate),
    };
  }

  private startPrior(start: ModelStart): GaussianPrior {
    return modelStartPrior(start, this.population, this.opts.knownScale, () => this.newModelPrior());
  }

  private newPosterior(modelId: string): AbilityPosterior {
    return new AbilityPosterior(this.newModelPrior(modelId), this.postOpts());
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
    return unknownModelError(modelId, this.models());
  }

  private validate(event: FeedbackEvent): void {
    checkLearnerEvent(event, this.dim, this.opts.itemBounds);
  }
}
