import { MemoryBudgetLedger, type FeedbackBudgetLedger } from "../../src/learning/budget.js";
import { StoreError } from "../../src/errors.js";
import type { ItemBounds } from "../../src/learning/event-check.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import type { HashRunIds } from "../../src/learning/pseudonymize.js";
import {
  parseStoreOptions,
  StoreEventRules,
  StoreLedger,
  storeOptionsSchema,
  toStrictJson,
  type AbilityStore,
  type AppendResult,
  type LoadResult,
} from "../../src/learning/store.js";

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** `append()` reports `snapshotDue` after this many events since the last snapshot (default 1000). Unknown keys are rejected. */
  snapshotEvery?: number;
  /** How many of the latest event ids are remembered to refuse a duplicate (default 10,000; see docs/stores.md). */
  dedupeWindow?: number;
  /** Item-parameter bounds of the events accepted (default `DEFAULT_ITEM_BOUNDS`, as the learner's). */
  itemBounds?: ItemBounds;
  /** Keep pseudonyms of run ids, event ids and sources (`true`: SHA-256; a key of 16+ characters: HMAC). See docs/stores.md. */
  hashRunIds?: HashRunIds;
}

/**
 * An {@link AbilityStore} held in process memory: same validation, duplicate handling (a window of the latest ids), sequence
 * numbers and snapshot/compaction semantics as `FileStore`, but nothing survives the process.
 * For tests, short-lived runs, and as a reference for other stores. Events and states are stored
 * as JSON copies, so later mutation of the caller's objects does not change what was stored.
 *
 * @example
 * ```ts
 * const store = new MemoryStore({ snapshotEvery: 100 });
 * const { appended, duplicates } = await store.append([event]);
 * const { snapshot, events } = await store.load();
 * ```
 */
export class MemoryStore implements AbilityStore {
  /** Feedback budgets, reserved atomically in this process (see {@link FeedbackBudgetLedger}). */
  readonly budget: FeedbackBudgetLedger = new MemoryBudgetLedger();
  private readonly ledger: StoreLedger;
  private readonly rules: StoreEventRules;
  /** JSON text of events after the last snapshot, in order. */
  private tail: { seq: number; json: string }[] = [];
  private snapshotJson?: { seq: number; json: string };
  private closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    const { snapshotEvery, dedupeWindow, ...rules } = parseStoreOptions(
      storeOptionsSchema,
      options,
      "MemoryStore options",
    );
    this.ledger = new StoreLedger(snapshotEvery, dedupeWindow);
    this.rules = new StoreEventRules(rules);
  }

  async append(events: readonly FeedbackEvent[]): Promise<AppendResult> {
    this.ensureOpen();
    // Validated, deduped and stored exactly as serialised (the JSON round trip of each event).
    const prepared = this.rules.prepare(events);
    const json = new Map<FeedbackEvent, string>(prepared.map((p) => [p.event, p.json]));
    const { fresh, duplicates } = this.ledger.partition(prepared.map((p) => p.event));
    fresh.forEach((e, k) => this.tail.push({ seq: this.ledger.seq + k + 1, json: json.get(e)! }));
    this.ledger.commit(fresh);
    return this.ledger.result(fresh.length, this.rules.givenIds(duplicates, events, prepared));
  }

  async load(): Promise<LoadResult> {
    this.ensureOpen();
    return {
      snapshot: this.snapshotJson && { seq: this.snapshotJson.seq, state: JSON.parse(this.snapshotJson.json) },
      events: this.tail.map((t) => JSON.parse(t.json) as FeedbackEvent),
      seq: this.ledger.seq,
    };
  }

  async snapshot(seq: number, state: unknown): Promise<void> {
    this.ensureOpen();
    this.ledger.checkSnapshotSeq(seq);
    const json = toStrictJson(this.rules.storedState(state), "state");
    this.snapshotJson = { seq, json };
    this.tail = this.tail.filter((t) => t.seq > seq);
    this.ledger.snapshotSeq = seq;
  }

  /** Whether an event with this id is among the last `dedupeWindow` stored. */
  has(id: string): boolean {
    return this.ledger.ids.has(this.rules.storedId(id));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError("This MemoryStore was closed; create a new one.");
  }
}
