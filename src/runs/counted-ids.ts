/**
 * The ids of shared run outcomes a replica has taken (counted or skipped), in memory that grows with the replicas that
 * wrote them, not with the log: a replica names its outcomes `<replica>.<n>` (its random id, then 0, 1, 2, ... in the
 * order it appends them), and a log keeps each writer's appends in order, so per writer a number below which all were
 * taken, and the few taken above it, say the same as every id would.
 */
import { randomUUID } from "node:crypto";

/** `<uuid>.<n>`: a writer's id and the outcome's number, without leading zeros (one spelling per number). */
const SEQUENCED = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(0|[1-9][0-9]{0,14})$/;

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
      return;
    }
    taken.next += 1;
    while (taken.ahead.delete(taken.next)) taken.next += 1;
  }

  /** Ids kept one by one (the rest are each writer's count): what the memory grows with. */
  get kept(): number {
    let n = this.others.size;
    for (const t of this.writers.values()) n += t.ahead.size + 1;
    return n;
  }
}
