/**
 * A run prior: what a run-level router learned from run outcomes, saved to start another router from it
 * (`irt-router train --runs`, `new RunRouter({ models, prior })`). It holds each model's ability (mean, variance), the
 * (model, hint) offsets, and per past task its fitted difficulty and the hashed word vector of its text (no text, no
 * id, no outcome), which the text prior of a new task's difficulty averages over. A router that shares run outcomes
 * adds its sync checkpoint (`sync`), whose pending outcomes are shared run outcomes (task id, model, outcome).
 */
import { z } from "zod";
import type { Ability } from "./grid.js";
import { hintName, vectorPairSchema } from "./prior-fields.js";
import { syncCheckpointSchema, type RunSyncCheckpoint } from "./sync-checkpoint.js";

/** Format tag of a run prior. */
export const RUN_PRIOR_FORMAT = "irt-router/run-prior@1";

/** A saved run prior (see the module comment). */
export interface RunPrior {
  readonly format: typeof RUN_PRIOR_FORMAT;
  /** Each model's fitted ability (logits, p = sigmoid(ability + offset - difficulty)) and the run cost it was fitted at. */
  readonly models: Readonly<Record<string, { readonly ability: Ability; readonly runCost: number }>>;
  /** Offsets by model, then hint. */
  readonly hintOffsets: Readonly<Record<string, Readonly<Record<string, Ability>>>>;
  /** Prior variance of the hint offsets as estimated. */
  readonly hintVariance: number;
  /** Past tasks: fitted difficulty, hashed word vector ([index, value] pairs), hint. */
  readonly tasks: readonly {
    readonly difficulty: number;
    readonly vector: readonly (readonly [number, number])[];
    readonly hint?: string;
  }[];
  /**
   * True when the router that made it shared run outcomes through a run-outcome log (`sync`), or started from such a
   * prior: outcomes of that log are in it. A router started from a shared prior syncs only when the prior has its
   * checkpoint (`sync`, which says which outcomes it holds); a shared prior without one (saved before checkpoints
   * were) is refused by `sync`, since the log's outcomes would count twice.
   */
  readonly shared?: boolean;
  /**
   * Where the router that saved it stood in sharing run outcomes (see {@link RunSyncCheckpoint}): a router started
   * from the prior resumes from there. Absent when there is nothing to resume (a router that never learnt or synced
   * anything, a prior trained apart from any log).
   */
  readonly sync?: RunSyncCheckpoint;
  /** Where it was trained: free-form (dataset name, item and outcome counts, split). */
  readonly source?: Readonly<Record<string, string | number>>;
}

/**
 * Most |logit| a prior's abilities, offsets and difficulties may have: far past any real one (|logit| 40 is p = 4e-18),
 * and small enough that sums and squares over many tasks stay finite (two difficulties of 1e308 made every p NaN).
 */
export const MAX_LOGIT = 1000;
const logit = z.number().min(-MAX_LOGIT).max(MAX_LOGIT);

const ability = z.strictObject({ mean: logit, variance: z.number().finite().positive() });

export const runPriorSchema = z.strictObject({
  format: z.literal(RUN_PRIOR_FORMAT),
  models: z.record(z.string().min(1), z.strictObject({ ability, runCost: z.number().finite().nonnegative() })),
  hintOffsets: z.record(z.string().min(1), z.record(z.string().min(1), ability)),
  hintVariance: z.number().finite().positive(),
  tasks: z.array(
    z.strictObject({
      difficulty: logit,
      // a unit vector of hashed word counts (see textVector): indices below TEXT_DIM, values in [-1, 1]
      vector: z.array(vectorPairSchema),
      hint: hintName.optional(),
    }),
  ),
  shared: z.boolean().optional(),
  sync: syncCheckpointSchema.optional(),
  source: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
