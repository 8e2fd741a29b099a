/**
 * What the router needs of a store it is wired to with the `store` option (see {@link RouterStore}): the
 * `AbilityStore` it journals feedback to and restores its learner from and, for a store several processes share
 * (`RedisStore` in `irt-router/adapters`), the stream of everyone's events, a shared decision log and shared per-run
 * spend. Defined here so the router never depends on an adapter; adapters implement it.
 */
import type { FeedbackEvent } from "../../learning/events.js";
import type { AbilityStore } from "../../learning/store.js";
import type { RouteDecision } from "./route-decision.js";

/** One stored event and its sequence number in the store's order. */
export interface SequencedEvent {
  readonly seq: number;
  readonly event: FeedbackEvent;
}

/** A running follow of a shared store's event stream; `stop()` ends it (closing the store ends it too). */
export interface StoreSubscription {
  stop(): Promise<void>;
}

/** Who receives a followed stream: batches in sequence order, and errors (the follow retries by itself). */
export interface StreamListener {
  events(batch: readonly SequencedEvent[]): void;
  error?(error: unknown): void;
  /** A malformed entry at `seq` was skipped (in its place in the order): nothing to apply for it. */
  skipped?(seq: number): void;
  /** The store was wiped and republished (or reset by another process): restore from it (`load()`). */
  reset?(details: Readonly<Record<string, unknown>>): void;
}

/** A decision as the shared log keeps it: what `feedback()` needs on any process (JSON-serialisable). */
export interface SharedDecision {
  readonly decision: RouteDecision;
  readonly alpha: readonly number[];
  readonly beta: number;
  readonly catalogIds: Readonly<Record<string, string>>;
  /** Each candidate's predicted p by registered key (see `LoggedDecision.predicted`). */
  readonly predicted?: Readonly<Record<string, number>>;
}

/** Decisions kept where every process can read them (with a time to live). */
export interface SharedDecisionLog {
  put(entry: SharedDecision): Promise<void>;
  get(decisionId: string): Promise<SharedDecision | undefined>;
  /** Every kept decision of a run (in no particular order). */
  ofRun(runId: string): Promise<SharedDecision[]>;
}

/** Per-run spend every process adds to atomically (USD; calls without a run id share the key ""). */
export interface SharedSpend {
  spent(runId: string): Promise<number>;
  /**
   * Adds `usd` to the run's spend only if it is still `seen` (what the caller ranked with); else changes nothing and
   * returns the current spend, so the caller re-ranks with it.
   */
  reserve(runId: string, seen: number, usd: number): Promise<{ ok: boolean; spent: number }>;
  /** Adds `usd` (may be negative: a correction of a reservation) to the run's spend. */
  add(runId: string, usd: number): Promise<void>;
}

/**
 * A store the router can be wired to with `new IrtRouter({ models, store })`: any `AbilityStore` (`MemoryStore`,
 * `FileStore`), optionally shared by several processes, which then provides `follow` (everyone's events in one
 * order), `eventsAfter` (the same, read once), and may provide a shared decision log and shared spend.
 */
export interface RouterStore extends AbilityStore {
  /** Delivers every event stored after `afterSeq` (by any process), in order, until stopped. */
  follow?(afterSeq: number, listener: StreamListener): StoreSubscription;
  /** Events stored after `afterSeq`, in order (what `follow` would deliver next). */
  eventsAfter?(afterSeq: number): Promise<SequencedEvent[]>;
  readonly decisions?: SharedDecisionLog;
  readonly spend?: SharedSpend;
  /** Registers what a wiped store republishes: the router's learner state and the sequence number it covers. */
  republishFrom?(source: () => { seq: number; state: unknown } | undefined): void;
}

/** Whether a store is shared by several processes (it can be followed). */
export function isFollowable(
  store: RouterStore,
): store is RouterStore & Required<Pick<RouterStore, "follow" | "eventsAfter">> {
  return typeof store.follow === "function" && typeof store.eventsAfter === "function";
}
