/**
 * Folding a run-level router's older outcomes into its prior, so that what it keeps (and refits on every decision after
 * a feedback) stays bounded however long it runs: the outcomes of the tasks least recently fed back are fitted once, on
 * the prior the router has, and become its prior (as a restart from `toPrior()` would make them); the rest stay.
 */
import { fitRuns, hintKey, type FitInput, type FitPriors, type RunObservation } from "./fit.js";
import type { RunPrior } from "./run-prior.js";
import type { KnownTask, TextVector } from "./text-prior.js";
import { priorFrom } from "./to-prior.js";

/** A past task of a run prior as a router keeps it: its difficulty, word vector and hint. */
export interface PastTask extends KnownTask {
  readonly hint?: string;
}

/**
 * What a router starts from when given a run prior: its trained abilities and offsets, and its past tasks (kept once,
 * as vectors the text prior reads; {@link pastTasksOf} gives them back in a prior's form).
 */
export interface Learned {
  readonly trained: NonNullable<FitInput["trained"]>;
  readonly tasks: readonly PastTask[];
  /** The prior's models this router does not have, and their hint offsets: saved again as they were. */
  readonly others: Pick<RunPrior, "models" | "hintOffsets">;
}

/** Past tasks in a run prior's form. */
export function pastTasksOf(learned: Learned | undefined): RunPrior["tasks"] {
  return (learned?.tasks ?? []).map((t) => ({
    difficulty: t.difficulty,
    vector: [...t.vector],
    ...(t.hint !== undefined && { hint: t.hint }),
  }));
}

/** A run prior as a router with these models uses it (other models' abilities and offsets are kept apart). */
export function learnedFrom(prior: RunPrior, modelIds: readonly string[], maxTasks: number): Learned {
  const known = new Set(modelIds);
  const other = <T>(byModel: Readonly<Record<string, T>>) =>
    Object.fromEntries(Object.entries(byModel).filter(([id]) => !known.has(id)));
  return {
    others: { models: other(prior.models), hintOffsets: other(prior.hintOffsets) },
    trained: {
      abilities: new Map(Object.entries(prior.models).flatMap(([id, m]) => (known.has(id) ? [[id, m.ability]] : []))),
      hintOffsets: new Map(
        Object.entries(prior.hintOffsets).flatMap(([id, byHint]) =>
          known.has(id) ? Object.entries(byHint).map(([h, o]) => [hintKey(id, h), o] as const) : [],
        ),
      ),
      hintVariance: prior.hintVariance,
    },
    // the most recent `maxTasks` (a router restarted again and again from its own prior kept every start's)
    tasks: prior.tasks.slice(-maxTasks).map((t) => ({
      vector: new Map(t.vector),
      difficulty: t.difficulty,
      ...(t.hint !== undefined && { hint: t.hint }),
    })),
  };
}

/** A router's state as {@link foldLeastRecent} reads it. */
export interface FoldInput {
  readonly observations: readonly RunObservation[];
  readonly logCost: ReadonlyMap<string, number>;
  readonly models: readonly { readonly id: string; readonly runCost: number }[];
  readonly priors: FitPriors;
  readonly learned?: Learned;
  readonly vectors: ReadonlyMap<string, TextVector>;
  readonly hints: ReadonlyMap<string, string>;
  /** Tasks never folded now (those of escalations running: their next attempt needs their outcomes). */
  readonly pinned?: ReadonlySet<string>;
  /** How many outcomes to keep unfolded (whole tasks are folded, pinned ones not: about this many stay). */
  readonly keep: number;
}

/**
 * Folds the tasks least recently fed back (by their last outcome) until at most `keep` outcomes are left: their
 * outcomes, every one of a task together, are fitted on the router's prior and make its new prior. Returns that prior
 * and the tasks folded.
 */
export function foldLeastRecent(input: FoldInput): { prior: RunPrior; folded: Set<string> } {
  const count = new Map<string, number>();
  const last = new Map<string, number>();
  input.observations.forEach((o, i) => {
    count.set(o.task, (count.get(o.task) ?? 0) + 1);
    last.set(o.task, i);
  });
  // least recently fed back first: a task still in play (an escalation's next attempt) keeps its outcomes
  const order = [...count.keys()].sort((x, y) => last.get(x)! - last.get(y)!);
  const folded = new Set<string>();
  let left = input.observations.length;
  for (const task of order) {
    if (input.pinned?.has(task)) continue;
    const n = count.get(task)!;
    if (left <= input.keep) break;
    folded.add(task);
    left -= n;
  }
  const old = input.observations.filter((o) => folded.has(o.task));
  const trained = input.learned?.trained;
  const fit = fitRuns({ observations: old, logCost: input.logCost, priors: input.priors, ...(trained && { trained }) });
  const prior = priorFrom({
    fit,
    models: input.models,
    measured: new Set(old.map((o) => o.model)),
    ...(trained && { trained: trained.abilities }),
    earlierTasks: pastTasksOf(input.learned),
    ...(input.learned && { others: input.learned.others }),
    vectors: input.vectors,
    hints: input.hints,
  });
  return { prior, folded };
}
