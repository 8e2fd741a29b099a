/**
 * The online learner's options, inputs and outputs: what {@link OnlineLearner} takes and gives (its options schema,
 * the items it scores, the events' results, its serialisable state).
 */
import { z } from "zod";
import { DEFAULT_ITEM_BOUNDS, itemBoundsSchema } from "./event-check.js";
import type { FeedbackEvent } from "./events.js";
import type { KnownPrior } from "./known-prior.js";
import type { AbilityPosterior, PosteriorState } from "./posterior.js";
import { DEFAULT_SHRINKAGE, type AbilityPlacement } from "./prior.js";
import type { TaskOffsetsState } from "./task-offsets.js";

/** Exploration rule used when choosing among candidates. */
export type Exploration = "none" | "thompson" | "ucb";

// Built on the first learner's construction (z.lazy), not at import: a router imports the learner with its engine but
// makes one only on the first feedback, after its first routed call (issue 37).
export const learnerOptionsSchema = z.lazy(() =>
  z
    .object({
      /** Forgetting half-life, per model: in that model's events, or in milliseconds of event time. Off by default. */
      forgetting: z
        .union([
          z.object({ halfLifeEvents: z.number().positive() }).strict(),
          z.object({ halfLifeMs: z.number().positive() }).strict(),
        ])
        .optional(),
      /**
       * Known-model covariance as a fraction of the population covariance (default 0.05; {@link OnlineLearner.forScorer}
       * uses the scale the scorer's artifact fitted on its training labels).
       */
      knownScale: z.number().positive().default(0.05),
      /** Shrinkage of the population covariance toward a scaled identity (default 0.2). */
      shrinkage: z.number().min(0).max(1).default(DEFAULT_SHRINKAGE),
      /**
       * Multiplier on the population covariance for a model the catalog does not know (default 10, chosen with
       * `explore` by leave-one-dataset-out validation: docs/online.md). The known models are an older
       * cohort: a new model is more likely than a random known one to lie outside their range (usually above it), and a
       * prior as narrow as the cohort makes exploration too timid to try it.
       */
      inflate: z.number().positive().default(10),
      /** What feedback for a model the learner does not know does: "error" (default) or "add" (start it at the population prior). */
      unknownModels: z.enum(["error", "add"]).default("error"),
      /** Covariance form; default full for d <= 64, diagonal above. */
      mode: z.enum(["full", "diagonal"]).optional(),
      /** Forgetting is applied in batches once the pending factor falls below 1 - decayTolerance (default 0.02). */
      decayTolerance: z.number().gt(0).lt(1).default(0.02),
      /**
       * How many event ids are remembered for dedupe (oldest forgotten first; default 10,000, the stores' `dedupeWindow`):
       * they are part of the exported state, so a snapshot's size does not grow with the events seen.
       */
      maxRememberedIds: z.number().int().positive().default(10_000),
      /**
       * Default exploration for {@link OnlineLearner.choose} and {@link OnlineLearner.score} (default "thompson": a model
       * whose estimate fell is still sampled in proportion to its chance of being best, so it can come back when the
       * feedback that lowered it was wrong; with "none", and with "ucb" once its optimistic p falls below another model's,
       * it may never be routed to again. Thompson at `inflate` 10 had the best worst case of the rules that keep that
       * floor in leave-one-dataset-out validation; docs/online.md gives the table).
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
      /**
       * Where a model the learner does not track starts, by id, whenever it is added without an explicit start
       * (`addModel(id)`, feedback for it with `unknownModels: "add"`, a journal replayed by {@link OnlineLearner.restore}):
       * a start (e.g. its current-models catalog prior, as a router gives it), or undefined for the new-model prior.
       * The same function on restore gives the same priors as live.
       */
      modelPriors: z
        .custom<(modelId: string) => ModelStart | undefined>((v) => typeof v === "function", {
          message: "must be a function (modelId) => { ability, placement? } or undefined",
        })
        .optional(),
    })
    .strict(),
);

/**
 * Where a model starts in {@link OnlineLearner.addModel}: a given `ability` (treated like a catalogued model,
 * `knownScale` x the population covariance), or, with `placement`, an ability placed by its strength alone (the
 * population covariance plus the placement's uncertainty; see `placedModelPrior`).
 */
export interface ModelStart {
  /** The starting ability (the prior mean). */
  readonly ability: ArrayLike<number>;
  /** How sure that ability is, along the scale's strength direction (absent: a known model's `knownScale` prior). */
  readonly placement?: AbilityPlacement;
}

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
    readonly placement?: AbilityPlacement;
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

/** One tracked model: its posterior and its forgetting clock. */
export interface ModelEntry {
  posterior: AbilityPosterior;
  /** Forgetting not yet applied (a product of per-event factors). */
  pendingDecay: number;
  /** Latest event time seen for this model (time-based forgetting). */
  clock: number | null;
}
