/**
 * The learning of a router given neither `store` nor `learner`: an in-memory `OnlineLearner` over the scorer's
 * catalog, as `store: new MemoryStore()` would restore it, started by the first outcome the router records (feedback
 * or a calibration probe). Until then routing is exactly the scorer's; from then on p is the learner's predictive p,
 * so feedback always moves p. Lost when the process ends (give a `store` to keep it).
 *
 * The learner's module is imported on the first outcome ({@link loadLearnerModule}), not with the router: a fresh
 * process's first routed call does not load or compile it (issue 37).
 */
import { FeedbackError } from "../../errors.js";
import type { OnlineLearner } from "../../learning/learner.js";
import type { Scorer } from "../../scorer/types.js";
import type { ModelStart } from "../../learning/learner-types.js";

type LearnerModule = typeof import("../../learning/learner.js");
let learnerModule: Promise<LearnerModule> | undefined;

/** The online learner's module, imported on first use (an outcome to learn from, a store to restore), once. */
export function loadLearnerModule(): Promise<LearnerModule> {
  return (learnerModule ??= import("../../learning/learner.js"));
}

/** Holds the scorer once it has loaded and the learner once the first outcome is recorded. */
export class InMemoryLearning {
  private scorer?: Scorer;
  private starts?: ReadonlyMap<string, ModelStart>;
  private inner?: OnlineLearner;

  /**
   * Called when the scorer loads (the learner's prior is the scorer's catalog), with where the registered models that
   * are not rows of the scorer start (their catalog or family and price-tier priors).
   */
  onScorer(scorer: Scorer, starts: ReadonlyMap<string, ModelStart>): void {
    this.scorer = scorer;
    this.starts = starts;
  }

  /** The learner, once started (undefined before the first recorded outcome: routing uses the scorer's p). */
  get learner(): OnlineLearner | undefined {
    return this.inner;
  }

  /**
   * The learner, started now if it was not (the scorer must have loaded: an outcome follows a routed call), with the
   * router's `models` (catalog ids) that the scorer lacks added at the new-model prior, as the planner adds them to a
   * learner it routes with.
   */
  async start(models: readonly string[] = []): Promise<OnlineLearner> {
    const { OnlineLearner } = await loadLearnerModule();
    if (!this.inner) {
      const scorer = this.scorer;
      if (!scorer)
        throw new FeedbackError(
          "The router's in-memory learner starts from the scorer, which loads on the first call; route a call first.",
        );
      const starts = this.starts;
      // Feedback can name a registered model routing has not added yet (the learner starts after routing): it is added
      // at its catalog start, else the new-model prior, as a store's restore adds it.
      this.inner = OnlineLearner.forScorer(scorer, {
        unknownModels: "add",
        ...(starts ? { modelPriors: (id: string) => starts.get(id) } : {}),
      });
    }
    for (const id of models) if (!this.inner.has(id) && !this.inner.isRemoved(id)) this.inner.addModel(id);
    return this.inner;
  }
}
