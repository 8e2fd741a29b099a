/**
 * Sharing run outcomes between the replicas of a service through a {@link RunOutcomeLog}: what
 * {@link RunRouter.sync} pushes (this router's outcomes not yet in the log) and pulls (the others', checked, each
 * counted once).
 */
import { StoreError, ValidationError } from "../errors.js";
import { CountedIds, OutcomeIds } from "./counted-ids.js";
import type { RunObservation } from "./fit.js";
import { sharedRunOutcomeSchema, type RunOutcomeLog, type SharedRunOutcome } from "./run-outcome-log.js";
import type { RunPrior } from "./run-prior.js";
import { MAX_CHECKPOINT_CURSOR, type RunSyncCheckpoint } from "./sync-checkpoint.js";
import type { TextVector } from "./text-prior.js";

/** A record {@link RunRouter.sync} did not count, and why. */
export interface RunSyncSkip {
  /** The record's id, when it has a usable one. */
  readonly id?: string;
  /** What was wrong with it (the field and the rule it broke), or that it names a model this router lacks. */
  readonly reason: string;
}

/** What {@link RunRouter.sync} did. */
export interface RunSyncResult {
  /** This router's outcomes appended to the log (those a failed sync left pending included). */
  readonly pushed: number;
  /** Other replicas' outcomes read and added to this router's observations. */
  readonly pulled: number;
  /**
   * Records read again that were already counted or skipped (a push that was retried, a log read from its start
   * again).
   */
  readonly duplicates: number;
  /**
   * Records not counted because they are no valid outcome or name a model this router does not have (replicas may
   * run different model sets during a rollout), and this router's own outcomes that cannot be shared (see `skips`).
   */
  readonly skipped: number;
  /** Why, for the first 100 of them. */
  readonly skips: readonly RunSyncSkip[];
  /**
   * This router's outcomes dropped unshared: while the log cannot be reached, at most 10 x `maxOutcomes` of them
   * (100,000 by default) wait for it, and past that the oldest go (this router has learnt them; the other replicas
   * never will).
   */
  readonly dropped: number;
}

/** Most skipped records a sync result lists (it counts them all). */
export const MAX_SKIPS_LISTED = 100;
/** Most outcomes one `append` call of a sync takes. */
export const PUSH_BATCH = 500;
/** Most of a router's own outcomes that wait for a log, per outcome it keeps (`maxOutcomes`): past it, the oldest go. */
export const PENDING_PER_KEPT = 10;
/** Most pages one sync reads (it goes on from there at the next). */
const MAX_PAGES = 10_000;

/**
 * What the sharing needs of the router: its models, its observations (the ones it keeps now: a fold of its oldest
 * outcomes into its prior removes some), and a way to add one.
 */
export interface SyncedRouter {
  readonly models: ReadonlySet<string>;
  observations(): readonly RunObservation[];
  /** The vector of a task the router has observations of. */
  vectorOf(task: string): TextVector;
  /** Adds an outcome of another replica as an observation (checked already) and returns it; never folds. */
  add(outcome: SharedRunOutcome): RunObservation;
  /** After a page is added: the router folds its older outcomes if it keeps more than its bound. */
  settle(): void;
  /** Most of its own outcomes that wait for a log ({@link PENDING_PER_KEPT} x its `maxOutcomes`). */
  readonly maxPending: number;
}

/**
 * An outcome waiting for a log: it gets its id when first appended or saved in a checkpoint, and keeps it until a log
 * has it.
 */
type PendingOutcome = Omit<SharedRunOutcome, "id"> & { id?: string };

interface Tally {
  pushed: number;
  pulled: number;
  duplicates: number;
  skipped: number;
  skips: RunSyncSkip[];
  dropped: number;
}

/**
 * A router's side of sharing: its outcomes not yet appended (`pending`: each gets its id when first appended or saved
 * in a checkpoint, in order, and keeps it until a log has it), the ids it took, and its cursor in each log. Syncs run
 * one at a time, in call order. Started from a prior's checkpoint, it resumes from there (see {@link RunSyncCheckpoint}).
 */
export class RunOutcomeSharing {
  /**
   * The router's observations already queued (its own) or pulled (the others'): the rest are its own, new. Renewed at
   * each look to hold only the observations the router still has (a WeakSet's table grew with all it ever held).
   */
  private handled = new Set<RunObservation>();
  /** This router's outcomes that could not be shared, found outside a sync (before a fold): the next sync lists them. */
  private carried: Tally = emptyTally();
  private readonly pending: PendingOutcome[] = [];
  /** How many of the oldest pending outcomes an append was given (it may have stored them): never dropped. */
  private offered = 0;
  /** The shared form of each task vector queued (one array for all the outcomes of a task). */
  private readonly pairs = new WeakMap<TextVector, [number, number][]>();
  /** Other replicas' outcomes counted, or skipped for a model this router lacks (and those of its checkpoint). */
  private readonly taken: CountedIds;
  private readonly cursors = new WeakMap<RunOutcomeLog, string>();
  /** Where a log is read from until a page of one is read: the checkpoint's cursor. */
  private resume?: string;
  /** The cursor after the last page read (of the log read last): what a checkpoint keeps. */
  private last?: string;
  /** Ids given to the router's own outcomes by a checkpoint taken before its first sync (see `checkpoint`). */
  private readonly reserved = new WeakMap<RunObservation, string>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether a sync has started (past its checks), or it resumed a sharing router: its outcomes may be in a log. */
  used: boolean;
  /** Started from a prior that holds a log's outcomes and no checkpoint (`RunPrior.shared`): it may not sync. */
  readonly refuses: boolean;

  /** Sharing from the start, or (given a prior that says where its router stood, `shared` and `sync`) from there. */
  constructor(
    prior?: Pick<RunPrior, "shared" | "sync">,
    private readonly ids: OutcomeIds = new OutcomeIds(),
  ) {
    const start = prior?.sync;
    this.refuses = prior?.shared === true && start === undefined;
    this.used = prior?.shared === true && start !== undefined;
    this.taken = start ? CountedIds.from(start) : new CountedIds();
    for (const o of start?.pending ?? []) {
      this.pending.push({ ...o });
      this.taken.add(o.id); // in the prior: never counted again when read
    }
    this.resume = start?.cursor;
  }

  /** This router's outcomes not yet appended to a log (from the first sync on). */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Pushes the pending outcomes to `log`, then pulls the others' (see {@link RunRouter.sync}). */
  sync(log: RunOutcomeLog, router: SyncedRouter): Promise<RunSyncResult> {
    if (typeof log?.append !== "function" || typeof log?.read !== "function") {
      return Promise.reject(
        new ValidationError(
          "sync() takes a run-outcome log (an object with append() and read(), e.g. a MemoryRunOutcomeLog, " +
            "FileRunOutcomeLog or RedisRunOutcomeLog from irt-router/adapters).",
          { path: "log" },
        ),
      );
    }
    if (this.refuses) {
      return Promise.reject(
        new ValidationError(
          "This router cannot sync any run-outcome log: it started from a run prior saved by a router that shared " +
            "run outcomes through one (prior.shared) without the checkpoint that says which (prior.sync: saved by " +
            "earlier versions), so the outcomes of that log are in its prior and a sync would count them again. " +
            "Start the replica without that prior (its first sync() learns what the log holds), or from a prior " +
            "toPrior() saves now.",
          { path: "options.prior.shared" },
        ),
      );
    }
    this.used = true;
    const run = this.queue.then(() => this.syncNow(log, router));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async syncNow(log: RunOutcomeLog, router: SyncedRouter): Promise<RunSyncResult> {
    const tally = this.carried;
    this.carried = emptyTally();
    try {
      return await this.pushAndPull(log, router, tally);
    } catch (error) {
      // the records skipped so far are not read again: the next sync lists them
      this.carried.skipped += tally.skipped;
      this.carried.skips = [...tally.skips, ...this.carried.skips].slice(0, MAX_SKIPS_LISTED);
      this.carried.dropped += tally.dropped;
      throw error;
    }
  }

  private async pushAndPull(log: RunOutcomeLog, router: SyncedRouter, tally: Tally): Promise<RunSyncResult> {
    this.collect(router, tally);
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, PUSH_BATCH);
      for (const o of batch) o.id ??= this.ids.next();
      this.offered = Math.max(this.offered, batch.length);
      try {
        await log.append(batch as SharedRunOutcome[]);
      } catch (error) {
        throw new StoreError(
          `sync() could not append ${this.pending.length} run outcome(s) to the log (${message(error)}). ` +
            `They stay pending (the oldest dropped past 10 x maxOutcomes) and the next sync() appends them again ` +
            `(readers skip repeats by id); routing goes on with what this router has.`,
          { cause: error, details: { pushed: tally.pushed, pending: this.pending.length } },
        );
      }
      this.pending.splice(0, batch.length);
      this.offered -= batch.length;
      tally.pushed += batch.length;
    }
    await this.pull(log, router, tally);
    return tally;
  }

  /** Reads the log from this router's cursor in it until a page comes back empty, adding what it may count. */
  private async pull(log: RunOutcomeLog, router: SyncedRouter, tally: Tally): Promise<void> {
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const after = this.cursors.get(log) ?? this.resume;
      let page: Awaited<ReturnType<RunOutcomeLog["read"]>>;
      try {
        page = await log.read(after);
        if (!Array.isArray(page?.outcomes) || typeof page.cursor !== "string") {
          throw new Error("read() returned no { outcomes: [...], cursor: string } page");
        }
      } catch (error) {
        if (error instanceof ValidationError && after !== undefined && after === this.resume) {
          this.resume = undefined; // the checkpoint's cursor is no cursor of this kind of log: read it from its start
          continue;
        }
        throw new StoreError(
          `sync() appended ${tally.pushed} run outcome(s) but could not read the log (${message(error)}) after ` +
            `pulling ${tally.pulled}. The next sync() reads on from the last page read; routing goes on with what ` +
            `this router has.`,
          { cause: error, details: { pushed: tally.pushed, pulled: tally.pulled } },
        );
      }
      // This router's outcomes recorded while the page was read go out next time; what it adds now is not its own.
      this.collect(router, tally);
      const unreadable = Array.isArray(page.unreadable) ? page.unreadable : [];
      for (const reason of unreadable) skip(tally, undefined, String(reason));
      for (const raw of page.outcomes) this.take(raw, router, tally);
      router.settle(); // each pulled outcome is marked as pulled: the router may fold now
      this.cursors.set(log, page.cursor);
      this.last = page.cursor;
      this.resume = undefined;
      if ((page.outcomes.length === 0 && unreadable.length === 0) || page.cursor === after) return;
    }
  }

  /**
   * Queues this router's own observations not queued yet for the next sync: the router calls it before it folds
   * observations away, so that none of its own goes unshared (from its first sync on).
   */
  queueOwn(router: SyncedRouter): void {
    if (this.used) this.collect(router, this.carried);
  }

  /**
   * What a prior saved now says of sharing: whether it holds a log's outcomes (`RunPrior.shared`), and its checkpoint.
   */
  saved(router: SyncedRouter): { shared: boolean; sync?: RunSyncCheckpoint } {
    const sync = this.checkpoint(router);
    return { shared: this.used || this.refuses, ...(sync && { sync }) };
  }

  /**
   * The checkpoint of a prior saved now (see {@link RunSyncCheckpoint}; undefined when the router has not synced and
   * there is nothing to resume, or when it may not sync). Every outcome of the router's own that the prior holds has its id from now on: queued
   * with it once the router has synced; before its first sync, kept with the outcome, which that sync appends with it
   * (one folded away before then is never shared, and its number is a gap readers get past: see MAX_AHEAD).
   */
  private checkpoint(router: SyncedRouter): RunSyncCheckpoint | undefined {
    if (this.refuses) return undefined;
    if (this.used) this.collect(router, this.carried);
    else this.reserve(router);
    for (const o of this.pending) o.id ??= this.ids.next();
    const given = this.ids.given;
    const { writers, others } = this.taken.state(given > 0 ? { writer: this.ids.replica, next: given } : undefined);
    // a cursor too long for the prior's schema is left out: the resumed router reads from the start, counting by id
    const at = this.last ?? this.resume;
    const cursor = at !== undefined && at.length <= MAX_CHECKPOINT_CURSOR ? at : undefined;
    const pending = this.pending.map((o) => ({ ...o, vector: o.vector.map(([k, v]) => [k, v]) }) as SharedRunOutcome);
    // a router that has synced always leaves one, though empty (its first sync failed or is under way): its prior is
    // shared, and a shared prior without a checkpoint refuses to sync
    const empty = Object.keys(writers).length === 0 && !others && pending.length === 0 && cursor === undefined;
    if (empty && !this.used) return undefined;
    return {
      writers,
      ...(others && { others }),
      ...(pending.length > 0 && { pending }),
      ...(cursor !== undefined && { cursor }),
    };
  }

  /** Gives each own outcome of a router that has not synced yet, not given one before and shareable, its id. */
  private reserve(router: SyncedRouter): void {
    for (const o of router.observations()) {
      if (this.handled.has(o) || this.reserved.has(o)) continue;
      const { task, model, outcome, hint } = o;
      const shape = { id: `${this.ids.replica}.0`, task, vector: [], model, outcome, weight: o.weight ?? 1 };
      if (sharedRunOutcomeSchema.safeParse({ ...shape, ...(hint !== undefined && { hint }) }).success) {
        this.reserved.set(o, this.ids.next());
      }
    }
  }

  /**
   * Queues this router's observations recorded since the last look; past `maxPending` waiting, drops the oldest not yet
   * given to an append (one that was may be in the log, and keeps its place).
   */
  private collect(router: SyncedRouter, tally: Tally): void {
    const handled = new Set<RunObservation>();
    for (const o of router.observations()) {
      handled.add(o);
      if (this.handled.has(o)) continue;
      const id = this.reserved.get(o);
      const outcome: PendingOutcome = {
        ...(id !== undefined && { id }),
        task: o.task,
        vector: this.pairsOf(router.vectorOf(o.task)),
        ...(o.hint !== undefined && { hint: o.hint }),
        model: o.model,
        outcome: o.outcome,
        weight: o.weight ?? 1,
      };
      const checked = sharedRunOutcomeSchema.safeParse({ ...outcome, id: id ?? `${this.ids.replica}.0` });
      if (!checked.success) {
        const what = `this router's outcome of model "${o.model.slice(0, 100)}" on task "${o.task.slice(0, 100)}"`;
        skip(tally, undefined, `${what} cannot be shared: ${issueText(checked.error)}`);
        continue;
      }
      this.pending.push(outcome);
    }
    this.handled = handled;
    const drop = Math.min(this.pending.length - router.maxPending, this.pending.length - this.offered);
    if (drop <= 0) return;
    this.pending.splice(this.offered, drop);
    tally.dropped += drop;
  }

  private pairsOf(vector: TextVector): [number, number][] {
    let pairs = this.pairs.get(vector);
    if (!pairs) this.pairs.set(vector, (pairs = [...vector]));
    return pairs;
  }

  /** Counts a record read from the log, or skips it (malformed, a model this router lacks) or passes (counted). */
  private take(raw: unknown, router: SyncedRouter, tally: Tally): void {
    const checked = sharedRunOutcomeSchema.safeParse(raw);
    if (!checked.success) return skip(tally, idOf(raw), `not a valid run outcome: ${issueText(checked.error)}`);
    const o = checked.data as SharedRunOutcome;
    if (this.ids.owns(o.id)) return;
    if (this.taken.has(o.id)) {
      tally.duplicates++;
      return;
    }
    this.taken.add(o.id);
    if (!router.models.has(o.model)) {
      return skip(tally, o.id, `model "${o.model}" is not one of this router's models`);
    }
    this.handled.add(router.add(o));
    tally.pulled++;
  }
}

function emptyTally(): Tally {
  return { pushed: 0, pulled: 0, duplicates: 0, skipped: 0, skips: [], dropped: 0 };
}

function skip(tally: Tally, id: string | undefined, reason: string): void {
  tally.skipped++;
  if (tally.skips.length < MAX_SKIPS_LISTED) {
    tally.skips.push({ ...(id !== undefined && { id }), reason: reason.slice(0, 300) });
  }
}

/** A record's id when it has a short string one (for the skip list). */
function idOf(raw: unknown): string | undefined {
  const id = (raw as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" && id.length <= 200 ? id : undefined;
}

function issueText(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  return issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message;
}

function message(error: unknown): string {
  return String((error as { message?: unknown } | null)?.message ?? error);
}
