/**
 * A run-level router's difficulty prior of a task from its text, kept per task until the next fit: the several
 * decisions of one escalation or of a cost-weight sweep on a task compare its text with the past tasks once.
 */
import { difficultySpread, type FitPriors, type FitResult } from "./fit.js";
import { priorWeights } from "./grid.js";
import type { PastTask } from "./fold.js";
import { difficultyPrior, fingerprint, textVector, type KnownTask, type TextVector } from "./text-prior.js";

/** Most (task, text) difficulty-prior means kept between two fits (the oldest is dropped first). */
const PRIOR_CACHE = 1024;

/** What a difficulty prior reads of the router. */
export interface DifficultySources {
  readonly fit: FitResult;
  /** The past tasks of its prior. */
  readonly pastTasks: readonly PastTask[];
  /** The word vector of each task it has outcomes of. */
  readonly vectors: ReadonlyMap<string, TextVector>;
  readonly priors: Pick<FitPriors, "difficultySd"> & { readonly neighbours: number; readonly textWeight: number };
}

/** Difficulty-prior means per task (id and text) under one fit, and that fit's spread. */
export class DifficultyPriorCache {
  private cache?: { readonly fit: FitResult; readonly sd: number; readonly means: Map<string, number> };

  /**
   * Difficulty prior of a task (its grid weights): from the fitted difficulties of similar past tasks (the task itself
   * left out).
   */
  weights(key: string, text: string, from: DifficultySources): Float64Array {
    const { fit, pastTasks, vectors, priors } = from;
    if (this.cache?.fit !== fit) {
      this.cache = { fit, sd: difficultySpread(fit, pastTasks, priors.difficultySd), means: new Map() };
    }
    const cache = this.cache;
    // a fingerprint, not the texts: the cache lives until the next fit, which never comes without feedback, and keys
    // holding every text routed kept them all (217 MB after 2000 routes of 108 KB texts); at most PRIOR_CACHE entries
    const cacheKey = `${fingerprint(key)}:${fingerprint(text)}`;
    let mean = cache.means.get(cacheKey);
    if (mean === undefined) {
      const known: KnownTask[] = [...pastTasks];
      for (const [task, d] of fit.difficulties) {
        if (task !== key) known.push({ vector: vectors.get(task)!, difficulty: d.mean });
      }
      mean = difficultyPrior(textVector(text), known, priors.neighbours, priors.textWeight);
      if (cache.means.size >= PRIOR_CACHE) cache.means.delete(cache.means.keys().next().value!);
      cache.means.set(cacheKey, mean);
    }
    return priorWeights(mean, cache.sd);
  }
}
