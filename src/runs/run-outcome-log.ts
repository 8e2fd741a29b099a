/**
 * The shared run-outcome log: where the replicas of a service append the run outcomes they learn from and read those
 * of the others (`RunRouter.sync`). A contract only: the logs themselves (`MemoryRunOutcomeLog`,
 * `FileRunOutcomeLog`, `RedisRunOutcomeLog`) live in `irt-router/adapters`.
 */
import { z } from "zod";
import { hintName, vectorPairSchema } from "./prior-fields.js";
import { TEXT_DIM } from "./text-prior.js";

/**
 * One run outcome as replicas share it: what `RunRouter.feedback` recorded, with the task's hashed word vector
 * in place of its text (the text itself is never shared, as a run prior does not keep it).
 */
export interface SharedRunOutcome {
  /** Unique per outcome (a random UUID made by the router that recorded it): a record read twice counts once. */
  readonly id: string;
  /**
   * The task key: the task's id, or, for a task given without an id (or with an id longer than
   * 1000 characters), `#` and a fingerprint of it (its length and two 32-bit hashes), never the text.
   */
  readonly task: string;
  /** The task text's hashed word vector (a unit vector): [index below `TEXT_DIM`, value] pairs. */
  readonly vector: readonly (readonly [number, number])[];
  /** The task's hint (its category), if it had one. */
  readonly hint?: string;
  /** The model that ran. */
  readonly model: string;
  /** The run's outcome in [0, 1] (1 passed, 0 failed, or a success rate). */
  readonly outcome: number;
  /** The weight the outcome counts with (positive). */
  readonly weight: number;
}

/**
 * A position in a log, after some records: opaque, made by the log that returns it. Giving `read` a cursor another log
 * made (or that a log made before it was wiped and recreated) reads from the start again; the router skips the records
 * it has already counted (by id), so a re-read never counts twice.
 */
export type RunOutcomeCursor = string;

/** What {@link RunOutcomeLog.read} returns. */
export interface RunOutcomePage {
  /**
   * The records after the cursor given, oldest first, as the log holds them (parsed from its JSON): not validated, a
   * reader checks each (`RunRouter.sync` skips and counts what is not a valid {@link SharedRunOutcome}).
   */
  readonly outcomes: readonly unknown[];
  /** Records the log could not even parse (not JSON, too long), each as the reason why: skipped by the reader. */
  readonly unreadable?: readonly string[];
  /** Where the next read starts: after the last record of this page (the cursor given when the page is empty). */
  readonly cursor: RunOutcomeCursor;
}

/**
 * An append-only log of run outcomes that several processes share. Records are kept in one order that every reader
 * sees; a page may be shorter than what is left (read again from its cursor until a page comes back empty).
 *
 * @example
 * ```ts
 * import type { RunOutcomeLog } from "irt-router/runs";
 *
 * declare const log: RunOutcomeLog;
 * let cursor: string | undefined;
 * for (;;) {
 *   const page = await log.read(cursor);
 *   if (page.outcomes.length === 0 && (page.unreadable?.length ?? 0) === 0) break;
 *   cursor = page.cursor;
 * }
 * ```
 */
export interface RunOutcomeLog {
  /**
   * Appends the outcomes, in order; resolves once they are stored (as durable as the log is: fsync'd for a file). A
   * batch that fails may still have been stored in part or in whole: append it again (same ids), readers skip the
   * repeats. Malformed outcomes are refused with a `ValidationError` naming the field, and nothing is written.
   */
  append(outcomes: readonly SharedRunOutcome[]): Promise<void>;
  /** The records after `after` (from the start when absent), and the cursor after them. */
  read(after?: RunOutcomeCursor): Promise<RunOutcomePage>;
  /** Releases the log's resources (a connection it opened). Further calls throw a `StoreError`. */
  close(): Promise<void>;
}

/** Longest outcome id and model id shared (characters). */
export const MAX_SHARED_ID = 200;
/** Longest task key shared (characters): a longer task id is shared by its fingerprint. */
export const MAX_SHARED_KEY = 1000;
/** Largest weight a shared outcome may have. */
export const MAX_SHARED_WEIGHT = 1e6;

const key = (max: number, what: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((k) => k !== "__proto__", `"__proto__" cannot be ${what}`);

/**
 * A shared run outcome, checked as a replica reads it (unknown keys are dropped: a newer writer may add some): ids and
 * model of at most 200 characters, never "__proto__"; a unit vector of at most `TEXT_DIM` pairs with indices below
 * `TEXT_DIM`; an outcome in [0, 1] and a positive weight of at most 1e6.
 */
export const sharedRunOutcomeSchema = z.object({
  id: key(MAX_SHARED_ID, "an outcome id"),
  task: key(MAX_SHARED_KEY, "a task key"),
  vector: z
    .array(vectorPairSchema)
    .max(TEXT_DIM)
    .refine((v) => v.reduce((s, [, x]) => s + x * x, 0) <= 1 + 1e-6, "must be a unit vector (sum of squares <= 1)"),
  hint: hintName.pipe(z.string().max(200)).optional(),
  model: key(MAX_SHARED_ID, "a model id"),
  outcome: z.number().min(0).max(1),
  weight: z.number().positive().max(MAX_SHARED_WEIGHT),
});
