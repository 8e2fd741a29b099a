/**
 * Group commit of a RedisStore's appends: the appends made in one turn of the event loop go together in one script
 * call (in order, up to 1,000 events a call), and up to `maxInFlight` calls are pipelined on the connection, so new
 * appends need not wait for the previous call's reply (Redis runs one connection's commands in order, so the stream
 * keeps the order the calls were made in). Each append resolves once the call that holds its events returns, that is
 * once Redis has them (fsynced first under `appendfsync always`): the same durability per event as one call each.
 */
import type { Prepared } from "./redis-buffer.js";
import type { RedisAppendResult } from "./redis-options.js";

/** What one script call answers: the result for all its events, and one flag per event ("1" stored, "0" duplicate). */
export type GroupResult = RedisAppendResult & { flags: string };

/** Events of one script call at most. */
const MAX_EVENTS = 1000;

export class GroupCommit {
  private readonly pending: {
    batch: readonly Prepared[];
    resolve: (r: RedisAppendResult) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly send: (batch: readonly Prepared[]) => Promise<GroupResult>,
    private readonly maxInFlight = 4,
  ) {}

  /** Stores `batch` with whatever else is waiting; its own appended count and duplicates come back. */
  commit(batch: readonly Prepared[]): Promise<RedisAppendResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ batch, resolve, reject });
      this.schedule();
    });
  }

  /** Sends what is waiting once this turn's synchronous code and promise callbacks have run (they may append more). */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.pending.length === 0) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.pending.length > 0) void this.sendNext();
    });
  }

  private async sendNext(): Promise<void> {
    let events = 0;
    let n = 0;
    while (n < this.pending.length && (n === 0 || events + this.pending[n]!.batch.length <= MAX_EVENTS))
      events += this.pending[n++]!.batch.length;
    const group = this.pending.splice(0, n);
    this.inFlight++;
    try {
      const r = await this.send(group.flatMap((g) => g.batch));
      let at = 0;
      group.forEach((g, k) => {
        const flags = r.flags.slice(at, (at += g.batch.length));
        const duplicates = g.batch.filter((_, i) => flags[i] !== "1").map((b) => b.id);
        const appended = g.batch.length - duplicates.length;
        g.resolve({ appended, duplicates, seq: r.seq, snapshotDue: r.snapshotDue && k === group.length - 1 });
      });
    } catch (error) {
      for (const g of group) g.reject(error);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
