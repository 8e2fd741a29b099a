/**
 * The ids of shared run outcomes a replica has taken (counted or skipped), in memory that grows with the replicas that
 * wrote them, not with the log: a replica names its outcomes `<replica>.<n>` (its random id, then 0, 1, 2, ... in the
 * order it appends them), and a log keeps each writer's appends in order, so per writer a number below which all were
 * taken, and the few taken above it, say the same as every id would.
 */
import { randomUUID } from "node:crypto";

/** A writer's id: a lowercase UUID. */
export const WRITER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `<uuid>.<n>`: a writer's id and the outcome's number, without leading zeros (one spelling per number). */
const SEQUENCED = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(0|[1-9][0-9]{0,14})$/;
/** Past the largest number a `<uuid>.<n>` id may have (15 digits). */
export const MAX_SEQUENCE = 1e15;

/**
 * Most numbers kept above one writer's count (taken out of order, a gap below them). Past it the lower half are taken
 * as read, the gaps under them with them: such gaps are outcomes that never reach this log (a log wiped under its
 * writers, a writer's outcomes dropped or folded away before it first synced), and one that still comes later is
 * counted as a repeat, never twice.
 */
export const MAX_AHEAD = 10_000;
/** Most writers a {@link CountedIdsState} keeps (those first seen most recently). */
export const MAX_STATE_WRITERS = 100_000;
/** Most ids of another shape a {@link CountedIdsState} keeps (those taken most recently). */
export const MAX_STATE_OTHERS = 10_000;

/** The ids a {@link CountedIds} holds, as a sync checkpoint saves them (numbers above each count sorted). */
export interface CountedIdsState {
  /** Per writer: every number below `next` is taken, and those in `ahead`. */
  readonly writers: Readonly<Record<string, { readonly next: number; readonly ahead?: readonly number[] }>>;
  /** Ids of another shape taken, as they are. */
  readonly others?: readonly string[];
}

/** One writer's outcomes taken: all numbers below `next`, and those above it in `ahead`. */
interface Taken {
  next: number;
  readonly ahead: Set<number>;
}

/** The outcome ids a writer gives: `<replica>.<n>`, numbered from 0 in the order asked. */
export class OutcomeIds {
  readonly replica: string;
  private count = 0;

  constructor(replica: string = randomUUID()) {
    this.replica = replica;
  }

  /** The next id. */
  next(): string {
    return `${this.replica}.${this.count++}`;
  }

  /** How many ids it has given (the next one's number). */
  get given(): number {
    return this.count;
  }

  /** Whether `id` is one of this writer's. */
  owns(id: string): boolean {
    return id.startsWith(`${this.replica}.`);
  }
}

/**
 * Outcome ids taken. Ids of the `<replica>.<n>` shape cost a few bytes per writer once each writer's outcomes are read
 * in the order written (a writer's numbers read out of order, or missing from the log, are kept one by one until the
 * gap fills); any other id (a writer of another shape) is kept as it is.
 */
export class CountedIds {
  private readonly writers = new Map<string, Taken>();
  private readonly others = new Set<string>();

  has(id: string): boolean {
    const m = SEQUENCED.exec(id);
    if (!m) return this.others.has(id);
    const taken = this.writers.get(m[1]!);
    const n = Number(m[2]);
    return taken !== undefined && (n < taken.next || taken.ahead.has(n));
  }

  add(id: string): void {
    const m = SEQUENCED.exec(id);
    if (!m) {
      this.others.add(id);
      return;
    }
    let taken = this.writers.get(m[1]!);
    if (!taken) this.writers.set(m[1]!, (taken = { next: 0, ahead: new Set() }));
    const n = Number(m[2]);
    if (n !== taken.next) {
      if (n > taken.next) taken.ahead.add(n);
      if (taken.ahead.size > MAX_AHEAD) closeLowerGaps(taken);
      return;
    }
    taken.next += 1;
    while (taken.ahead.delete(taken.next)) taken.next += 1;
  }

  /**
   * What it holds, to save: the most recent {@link MAX_STATE_WRITERS} writers and {@link MAX_STATE_OTHERS} other ids,
   * and `own` (a writer's id and how many numbers it has given) as a writer all of whose outcomes are taken.
   */
  state(own?: { readonly writer: string; readonly next: number }): CountedIdsState {
    const writers: Record<string, { next: number; ahead?: number[] }> = {};
    const kept = [...this.writers].filter(([w]) => w !== own?.writer);
    for (const [w, t] of kept.slice(-(MAX_STATE_WRITERS - (own ? 1 : 0)))) {
      writers[w] = t.ahead.size > 0 ? { next: t.next, ahead: [...t.ahead].sort((a, b) => a - b) } : { next: t.next };
    }
    if (own) writers[own.writer] = { next: Math.max(own.next, this.writers.get(own.writer)?.next ?? 0) };
    const others = [...this.others].slice(-MAX_STATE_OTHERS);
    return { writers, ...(others.length > 0 && { others }) };
  }

  /** Ids taken as a {@link CountedIds.state} saved them (checked already: writers are UUIDs). */
  static from(state: CountedIdsState): CountedIds {
    const ids = new CountedIds();
    for (const [writer, saved] of Object.entries(state.writers)) {
      const taken: Taken = { next: saved.next, ahead: new Set((saved.ahead ?? []).filter((n) => n >= saved.next)) };
      while (taken.ahead.delete(taken.next)) taken.next += 1;
      while (taken.ahead.size > MAX_AHEAD) closeLowerGaps(taken);
      ids.writers.set(writer, taken);
    }
    for (const id of state.others ?? []) ids.others.add(id);
    return ids;
  }

  /** Ids kept one by one (the rest are each writer's count): what the memory grows with. */
  get kept(): number {
    let n = this.others.size;
    for (const t of this.writers.values()) n += t.ahead.size + 1;
    return n;
  }
}

/** Takes the lower half of a writer's numbers kept above its count as read, with the gaps below them (see MAX_AHEAD). */
function closeLowerGaps(taken: Taken): void {
  const sorted = [...taken.ahead].sort((a, b) => a - b);
  const low = sorted.slice(0, Math.ceil(sorted.length / 2));
  for (const n of low) taken.ahead.delete(n);
  taken.next = low[low.length - 1]! + 1;
  while (taken.ahead.delete(taken.next)) taken.next += 1;
}
