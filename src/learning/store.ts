import { z } from "zod";
import { FeedbackError, StoreError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import { assertFeedbackEvent, DEFAULT_ITEM_BOUNDS, itemBoundsSchema, type ItemBounds } from "./event-check.js";
import type { FeedbackBudgetLedger } from "./budget.js";
import type { FeedbackEvent } from "./events.js";
import { idHasher, pseudonymizeEvent, pseudonymizeState, type HashRunIds } from "./pseudonymize.js";

/** What {@link AbilityStore.append} reports. */
export interface AppendResult {
  /** How many events were new and are now durable. */
  appended: number;
  /** Ids that were already stored (or repeated within the batch): not written again. */
  duplicates: string[];
  /** Sequence number of the last stored event after this call (0 when the store is empty). */
  seq: number;
  /**
   * True when at least the store's `snapshotEvery` events have been appended since the last
   * snapshot: apply the events to the learner, then call `snapshot(seq, learner.exportState())`.
   */
  snapshotDue: boolean;
}

/** What {@link AbilityStore.load} returns. */
export interface LoadResult {
  /** Latest snapshot: the learner's opaque JSON state covering events 1..seq. */
  snapshot?: { seq: number; state: unknown };
  /** Every event after the snapshot, in append order (event i has sequence number `snapshot.seq + i + 1`). */
  events: FeedbackEvent[];
  /** Sequence number of the last stored event (0 when empty). */
  seq: number;
}

/**
 * Durable home of the online learner's feedback: an append-only event log plus periodic
 * snapshots of the learner state. Implementations: `MemoryStore` (tests, ephemeral) and the
 * embedded default `FileStore` (JSONL journal + atomic snapshot files), both in `irt-router/adapters`.
 *
 * Restoring a learner: `OnlineLearner.restore(await store.load(), known, options)` starts from the
 * snapshot's state (or fresh when absent), re-adds models the live learner added at the new-model
 * prior, and replays the events (see docs/stores.md for removed models). Check an event with
 * `learner.check(event)` before appending it, so the journal never holds one the learner rejects.
 *
 * @example
 * ```ts
 * const store = await FileStore.open(".irt-router/abilities");
 * const learner = OnlineLearner.restore(await store.load(), known);
 * learner.check(event);                            // throws on an event the learner would refuse: not journaled
 * const r = await store.append([event]);           // durable once resolved
 * learner.observe(event);
 * if (r.snapshotDue) await store.snapshot(r.seq, learner.exportState());
 * ```
 */
export interface AbilityStore {
  /**
   * Persist events; resolves only once they are durable (fsync for FileStore). Events are
   * validated first (a bad one throws `FeedbackError` and nothing is written). Duplicate ids
   * (already stored, or repeated in the batch) are no-ops, reported in `duplicates`.
   */
  append(events: readonly FeedbackEvent[]): Promise<AppendResult>;
  /** Latest snapshot (opaque JSON state of the learner + the sequence number it covers) and every event after it. */
  load(): Promise<LoadResult>;
  /**
   * Write a snapshot covering events up to `seq` (atomic for FileStore: temp file + fsync +
   * rename + dir fsync), then compact the journal so it holds only events after `seq`.
   * `state` must be JSON-serialisable with finite numbers.
   */
  snapshot(seq: number, state: unknown): Promise<void>;
  /** Release the store (FileStore: its lock). Further calls throw `StoreError`. */
  close(): Promise<void>;
  /**
   * The feedback budgets of the sources whose events this store keeps, reserved atomically before their events are
   * stored (see {@link FeedbackBudgetLedger}); a router wired to the store charges it instead of its own.
   */
  readonly budget?: FeedbackBudgetLedger;
}

// Defined beside the errors (a router imports it without this module: issue 37, the first call).
export { snapshotNeedsReopen } from "../errors.js";

/** How a store checks events: the item-parameter bounds (its `itemBounds` option) and an optional pseudonymiser. */
export interface PrepareOptions {
  readonly itemBounds?: ItemBounds;
  /** Applied to each valid event before it is serialised (a store's `hashRunIds`): what is stored is its result. */
  readonly transform?: (event: FeedbackEvent) => FeedbackEvent;
}

/**
 * Validate a batch of feedback events before anything is written. Throws a {@link FeedbackError}
 * naming the first bad event by index and id and the bad field (`events.3.y: y must be in [0, 1]`), by the rules of
 * {@link feedbackEventProblem} (the learner's own). What is checked is the event as it will be stored: its JSON round
 * trip (so an object whose `toJSON` changes it is validated in the shape that would be written).
 */
export function assertValidFeedbackEvents(
  events: unknown,
  options: PrepareOptions = {},
): asserts events is readonly FeedbackEvent[] {
  prepareFeedbackEvents(events, options);
}

/**
 * What a store writes for a batch: each event's strict JSON text and the event parsed back from it, validated
 * ({@link assertValidFeedbackEvents} rules). Stores keep, dedupe and return exactly these copies.
 */
export function prepareFeedbackEvents(
  events: unknown,
  options: PrepareOptions = {},
): { event: FeedbackEvent; json: string }[] {
  if (!Array.isArray(events)) {
    throw new FeedbackError(
      `append() takes an array of feedback events, got ${events === null ? "null" : typeof events}.`,
    );
  }
  const check = { itemBounds: options.itemBounds ?? DEFAULT_ITEM_BOUNDS };
  return events.map((raw: unknown, i) => {
    const id = (raw as { id?: unknown } | null)?.id;
    const name = `${i}${typeof id === "string" ? ` ("${id}")` : ""}`;
    const where = (as: string) => ({
      prefix: `events.${i}`,
      label: `Feedback event ${name} is invalid${as}`,
      suffix: " Nothing was written.",
    });
    // The given value first, for the clearest message (unless it serialises through its own toJSON).
    if (typeof (raw as { toJSON?: unknown } | null)?.toJSON !== "function") assertFeedbackEvent(raw, check, where(""));
    let json: string;
    try {
      json = toStrictJson(raw, `events.${i}`);
    } catch (err) {
      throw new FeedbackError(
        `Feedback event ${name} cannot be stored: ${(err as Error).message}. Nothing was written.`,
        {
          path: (err as StoreError).path ?? `events.${i}`,
        },
      );
    }
    let event: unknown = JSON.parse(json);
    assertFeedbackEvent(event, check, where(" as it would be stored (its JSON form, after toJSON)"));
    if (options.transform) {
      event = options.transform(event);
      json = JSON.stringify(event);
    }
    return { event: event as FeedbackEvent, json };
  });
}

/**
 * `JSON.stringify` that refuses what JSON would silently change: NaN/Infinity (become null),
 * `undefined` array entries (become null), typed arrays (become objects), bigint, functions and
 * symbols. Throws a {@link StoreError} naming the offending path (`state.models.gpt-4o.mean.3`).
 */
export function toStrictJson(value: unknown, what: string): string {
  const problem = jsonProblem(value, what, new Set());
  if (problem) throw new StoreError(problem.message, { path: problem.path });
  const text = JSON.stringify(value);
  if (text === undefined) throw new StoreError(`${what} is not JSON-serialisable`);
  return text;
}

/** First value under `value` that JSON would drop or alter, described with its path. */
function jsonProblem(value: unknown, path: string, stack: Set<object>): { path: string; message: string } | undefined {
  const at = (message: string) => ({ path, message: `${path} ${message}` });
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? undefined : at(`is ${value}, which JSON cannot represent`);
    case "string":
    case "boolean":
      return undefined;
    case "bigint":
      return at("is a bigint; convert it to a number or a string");
    case "function":
    case "symbol":
    case "undefined":
      return at(`is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}, which JSON would drop`);
  }
  if (value === null) return undefined;
  const obj = value as object;
  if (ArrayBuffer.isView(obj)) {
    return at(`is a ${obj.constructor.name}, which JSON would turn into an object; convert it with Array.from()`);
  }
  if (typeof (obj as { toJSON?: unknown }).toJSON === "function") return undefined; // e.g. Date
  if (stack.has(obj)) return at("refers back to one of its parents (a cycle), which JSON cannot represent");
  stack.add(obj);
  try {
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        const v: unknown = obj[i];
        if (typeof v === "number" ? !Number.isFinite(v) : typeof v !== "string") {
          const p = jsonProblem(v, `${path}.${i}`, stack);
          if (p) return p;
        }
      }
      return undefined;
    }
    for (const [key, v] of Object.entries(obj)) {
      if (v === undefined) continue; // an absent optional field: JSON omits it, as intended
      const p = jsonProblem(v, `${path}.${key}`, stack);
      if (p) return p;
    }
    return undefined;
  } finally {
    stack.delete(obj);
  }
}

/**
 * How many of the latest event ids a store (and the learner, `maxRememberedIds`) remembers to refuse a duplicate: the
 * router's own decision log holds as many decisions (`decisionLogSize`), and refuses a second outcome for any of them.
 */
export const DEFAULT_DEDUPE_WINDOW = 10_000;

/**
 * The ids of the last `limit` events stored, oldest first: a store's duplicate check, bounded so that neither memory
 * nor a snapshot grows with the number of events ever stored. An id that left the window is no longer known: sent
 * again, it is stored (and learnt) again as a new event. Pure (no I/O).
 *
 * @example
 * ```ts
 * const window = new DedupeWindow(2);
 * window.add("a"); window.add("b"); window.add("c");
 * window.has("a"); // false: the window holds the last 2, ["b", "c"]
 * ```
 */
export class DedupeWindow {
  private readonly set = new Set<string>();

  constructor(readonly limit: number) {}

  has(id: string): boolean {
    return this.set.has(id);
  }

  /** Remembers `id` as the latest; the oldest leaves once more than `limit` are held. */
  add(id: string): void {
    this.set.delete(id);
    this.set.add(id);
    if (this.set.size > this.limit) this.set.delete(this.set.values().next().value!);
  }

  get size(): number {
    return this.set.size;
  }

  /** The ids held, oldest first. */
  ids(): string[] {
    return [...this.set];
  }
}

/**
 * Shared bookkeeping of every store: the latest ids (a {@link DedupeWindow}), the last sequence number, the last
 * snapshot's sequence number, and the rules for a valid snapshot sequence number. Pure (no I/O).
 */
export class StoreLedger {
  readonly ids: DedupeWindow;
  seq = 0;
  snapshotSeq = 0;

  constructor(
    readonly snapshotEvery: number,
    dedupeWindow = DEFAULT_DEDUPE_WINDOW,
  ) {
    this.ids = new DedupeWindow(dedupeWindow);
  }

  /**
   * The ids of the window that events up to `seq` stored, oldest first (the window is in sequence order: its last
   * `this.seq - seq` ids are of later events): what a snapshot at `seq` keeps for the duplicate check.
   */
  idsUpTo(seq: number): string[] {
    const ids = this.ids.ids();
    return ids.slice(0, Math.max(0, ids.length - (this.seq - seq)));
  }

  /** Split a validated batch into new events (first occurrence wins) and duplicate ids. */
  partition(events: readonly FeedbackEvent[]): { fresh: FeedbackEvent[]; duplicates: string[] } {
    const fresh: FeedbackEvent[] = [];
    const duplicates: string[] = [];
    const inBatch = new Set<string>();
    for (const e of events) {
      if (this.ids.has(e.id) || inBatch.has(e.id)) duplicates.push(e.id);
      else {
        inBatch.add(e.id);
        fresh.push(e);
      }
    }
    return { fresh, duplicates };
  }

  /** Record events as stored (after they are durable). */
  commit(events: readonly FeedbackEvent[]): void {
    for (const e of events) this.ids.add(e.id);
    this.seq += events.length;
  }

  result(appended: number, duplicates: string[]): AppendResult {
    return { appended, duplicates, seq: this.seq, snapshotDue: this.seq - this.snapshotSeq >= this.snapshotEvery };
  }

  /** Throw a StoreError unless `seq` is an integer in [last snapshot seq, last event seq]. */
  checkSnapshotSeq(seq: unknown): asserts seq is number {
    if (typeof seq !== "number" || !Number.isInteger(seq) || seq < this.snapshotSeq || seq > this.seq) {
      throw new StoreError(
        `snapshot(seq) needs an integer between the last snapshot (${this.snapshotSeq}) and the last stored event (${this.seq}); got ${String(seq)}. ` +
          `Pass the seq returned by append() for the events the state includes.`,
        { path: "seq" },
      );
    }
  }
}

/**
 * What every store does to the events and states it is given, from its parsed options: validates events by the shared
 * rules with its `itemBounds`, and, with `hashRunIds`, stores pseudonyms of run ids, event ids and sources (and of the
 * remembered event ids of a learner state). `has(id)` of a store compares `storedId(id)`.
 */
export class StoreEventRules {
  private readonly hash?: (id: string) => string;
  private readonly itemBounds?: ItemBounds;

  constructor(options: { itemBounds?: ItemBounds; hashRunIds?: HashRunIds }) {
    this.hash = idHasher(options.hashRunIds);
    this.itemBounds = options.itemBounds;
  }

  /** The batch as the store writes it ({@link prepareFeedbackEvents}, pseudonymised when `hashRunIds` is set). */
  prepare(events: unknown): { event: FeedbackEvent; json: string }[] {
    const hash = this.hash;
    return prepareFeedbackEvents(events, {
      itemBounds: this.itemBounds,
      transform: hash && ((e) => pseudonymizeEvent(e, hash)),
    });
  }

  /** Duplicate ids as the caller gave them (the ledger knows the stored ones: pseudonyms under `hashRunIds`). */
  givenIds(
    storedIds: readonly string[],
    given: readonly FeedbackEvent[],
    prepared: readonly { event: FeedbackEvent }[],
  ): string[] {
    if (!this.hash) return [...storedIds];
    const byStored = new Map(prepared.map((p, i) => [p.event.id, given[i]!.id]));
    return storedIds.map((id) => byStored.get(id) ?? id);
  }

  /** The id under which the store keeps an event id. */
  storedId(id: string): string {
    return this.hash && typeof id === "string" ? this.hash(id) : id;
  }

  /** The state as the store writes it. */
  storedState(state: unknown): unknown {
    return this.hash ? pseudonymizeState(state, this.hash) : state;
  }
}

/** Options every store accepts (unknown keys are rejected). */
export const storeOptionsSchema = z
  .object({
    /** `append()` reports `snapshotDue` once this many events were appended since the last snapshot. */
    snapshotEvery: z.number().int().min(1).max(10_000_000).default(1000),
    /**
     * How many of the latest event ids are remembered to refuse a duplicate (default {@link DEFAULT_DEDUPE_WINDOW},
     * 10,000): an id sent again after more events than this were stored is stored again, as a new event.
     */
    dedupeWindow: z.number().int().min(1).max(10_000_000).default(DEFAULT_DEDUPE_WINDOW),
    /** Item-parameter bounds of the events accepted (default `DEFAULT_ITEM_BOUNDS`; keep them equal to the learner's). */
    itemBounds: itemBoundsSchema.optional(),
    /**
     * Store run ids (and event ids and sources, which embed them) as pseudonyms: `true` (SHA-256) or a secret key of at
     * least 16 characters (HMAC-SHA-256). See `idHasher`. Off by default.
     */
    hashRunIds: z
      .union([z.boolean(), z.string().min(16, "a hashRunIds key must have at least 16 characters")])
      .optional(),
  })
  .strict();

/**
 * Parse store options with a strict schema; an unknown key is a `ValidationError` whose `path` names it
 * (`FileStore options.snapshotEvry`, with "did you mean snapshotEvery?"), so a misspelt option is never silently
 * ignored. (What {@link parseWith} does for every strict schema; kept as the stores' entry point.)
 */
export function parseStoreOptions<S extends z.ZodObject>(schema: S, options: unknown, what: string): z.output<S> {
  return parseWith(schema, options, what);
}
