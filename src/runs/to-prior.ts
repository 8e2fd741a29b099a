/** What a run-level router has learned, as a run prior to start another router from (see RunRouter.toPrior). */
import { savedAbility, type FitResult } from "./fit.js";
import { RUN_PRIOR_FORMAT, type RunPrior } from "./run-prior.js";
import type { Ability } from "./grid.js";
import type { RunSyncCheckpoint } from "./sync-checkpoint.js";
import type { TextVector } from "./text-prior.js";

/** A router's learned state, as {@link priorFrom} reads it. */
export interface LearnedState {
  readonly fit: FitResult;
  /** The router's models and their run costs, in its order. */
  readonly models: readonly { readonly id: string; readonly runCost: number }[];
  /** Models with an outcome fed back to this router. */
  readonly measured: ReadonlySet<string>;
  /** Abilities of the prior the router started from, if any. */
  readonly trained?: ReadonlyMap<string, Ability>;
  /** The tasks of that prior (carried over). */
  readonly earlierTasks?: RunPrior["tasks"];
  /** Each task's hashed word vector and hint, by task key. */
  readonly vectors: ReadonlyMap<string, TextVector>;
  readonly hints: ReadonlyMap<string, string>;
  /** Models of the prior it started from that it does not have, with their hint offsets (saved as they were). */
  readonly others?: Pick<RunPrior, "models" | "hintOffsets">;
  /** Whether what it learned holds outcomes of a run-outcome log (see `RunPrior.shared`). */
  readonly shared?: boolean;
  /** Where it stands in sharing run outcomes (see `RunPrior.sync`). */
  readonly sync?: RunSyncCheckpoint;
}

/**
 * The run prior of a learned state: the abilities of the models measured (by an outcome here, or in the prior the router
 * started from; a model with neither has only its price-tier prior, which a router started from this prior derives
 * again at its own price), the hint offsets, and each task's difficulty and word vector (no text, id or outcome).
 */
export function priorFrom(state: LearnedState, source?: Record<string, string | number>): RunPrior {
  const { fit } = state;
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const hintOffsets: Record<string, Record<string, Ability>> = {};
  for (const [key, o] of fit.hintOffsets) {
    const [model, hint] = key.split("\u0000") as [string, string];
    (hintOffsets[model] ??= {})[hint] = { mean: o.mean, variance: o.variance };
  }
  const tasks = [...fit.difficulties].map(([id, d]) => {
    const hint = state.hints.get(id);
    return {
      difficulty: d.mean,
      vector: [...state.vectors.get(id)!].map(([k, v]) => [k, round(v)] as [number, number]),
      ...(hint !== undefined && { hint }),
    };
  });
  const models = state.models.filter((m) => state.trained?.has(m.id) || state.measured.has(m.id));
  return {
    format: RUN_PRIOR_FORMAT,
    models: Object.fromEntries([
      ...Object.entries(state.others?.models ?? {}),
      ...models.map((m) => [
        m.id,
        { ability: savedAbility(fit.abilities.get(m.id)!, state.trained?.get(m.id)), runCost: m.runCost },
      ]),
    ]),
    hintOffsets: { ...state.others?.hintOffsets, ...hintOffsets },
    hintVariance: fit.hintVariance,
    tasks: [...(state.earlierTasks ?? []), ...tasks],
    ...(state.shared && { shared: true }),
    ...(state.sync && { sync: state.sync }),
    ...(source && { source: { ...source } }),
  };
}
