/**
 * A run prior's sync checkpoint (`RunPrior.sync`): where the router that saved it stood in sharing run outcomes, so
 * that a router started from the prior resumes sharing (reads a log on from there, counting each outcome once) instead
 * of reading the whole log again.
 */
import { z } from "zod";
import { MAX_AHEAD, MAX_SEQUENCE, MAX_STATE_OTHERS, MAX_STATE_WRITERS, WRITER_ID } from "./counted-ids.js";
import { MAX_SHARED_ID, sharedRunOutcomeSchema, type SharedRunOutcome } from "./run-outcome-log.js";

/** Longest log cursor a checkpoint keeps (characters). */
export const MAX_CHECKPOINT_CURSOR = 1000;

/**
 * Where a router stood in sharing run outcomes when it saved its prior (`RunRouter.toPrior`): the outcomes of a
 * run-outcome log its prior holds, by id, those of its outcomes no log is known to hold yet, and its cursor in the log
 * it last read. A router started from the prior (`new RunRouter({ models, prior })`) takes its own new writer id,
 * counts none of those ids again, appends the pending outcomes with their ids (a log that has them already, or two
 * routers resumed from one checkpoint appending them both, makes repeats every reader skips), and reads on from the
 * cursor: a cursor another log made, or one of a log wiped since, reads that log from its start, counting only what
 * the prior does not hold. Opaque: save it with the prior, as it is.
 *
 * @example
 * ```ts
 * import { RunRouter, type RunPrior } from "irt-router/runs";
 * import { MemoryRunOutcomeLog } from "irt-router/adapters";
 *
 * const models = { big: { runCost: 2 }, small: { runCost: 0.2 } };
 * const log = new MemoryRunOutcomeLog();
 * const replica = new RunRouter({ models });
 * await replica.sync(log);
 * replica.feedback({ id: "fix-git", text: "Recover the lost commit." }, "small", false); // not in the log yet
 * const prior: RunPrior = replica.toPrior();
 * console.log(prior.sync?.pending?.length, prior.sync?.cursor); // 1, the cursor after the last page read
 * const restarted = new RunRouter({ models, prior });
 * const { pushed, pulled } = await restarted.sync(log); // 1 (the pending outcome), 0
 * ```
 */
export interface RunSyncCheckpoint {
  /**
   * Per writer (the `<uuid>` of ids `<uuid>.<n>`), the outcomes the prior holds or the router passed (skipped for a
   * model it lacks): every number below `next`, and those in `ahead`. The saving router's own writer is counted up to
   * the next number it would give.
   */
  readonly writers: Readonly<Record<string, { readonly next: number; readonly ahead?: readonly number[] }>>;
  /** Ids of another shape counted (a writer that is no irt-router router): the most recent 10,000. */
  readonly others?: readonly string[];
  /**
   * Outcomes the prior holds that no log is known to hold yet, oldest first, each with the id it is appended with
   * (given when the checkpoint was taken). Like the log's records, they carry task ids, models and outcomes.
   */
  readonly pending?: readonly SharedRunOutcome[];
  /**
   * The router's cursor in the log it last read (absent: it read none, or the cursor was longer than 1000 characters;
   * a router resumed from it reads from the start, counting by id).
   */
  readonly cursor?: string;
}

const count = z.number().int().min(0).max(MAX_SEQUENCE);

/**
 * A sync checkpoint as a run prior holds it: writers UUIDs (at most 100,000, each with at most 10,000 numbers above
 * its count), at most 10,000 other ids, pending outcomes checked as a log's records are, a cursor of at most 1000
 * characters.
 */
export const syncCheckpointSchema = z.strictObject({
  writers: z
    .record(
      z.string().regex(WRITER_ID, "must be a writer id (a lowercase UUID)"),
      z.strictObject({
        next: count,
        ahead: z.array(count).max(MAX_AHEAD).optional(),
      }),
    )
    .refine((w) => Object.keys(w).length <= MAX_STATE_WRITERS, `at most ${MAX_STATE_WRITERS} writers`),
  others: z.array(z.string().min(1).max(MAX_SHARED_ID)).max(MAX_STATE_OTHERS).optional(),
  pending: z.array(sharedRunOutcomeSchema).optional(),
  cursor: z.string().min(1).max(MAX_CHECKPOINT_CURSOR).optional(),
});
