/**
 * Group commit of a RedisStore's appends: a batch is sent at once when no send is in flight; batches arriving meanwhile
 * wait and go together in the next script call (in order, up to 1,000 events), each resolving once the call that holds
 * its events returns. One round trip then carries many concurrent appends, with the same durability per event.
 */
import type { Prepared } from "./redis-buffer.js";
import type { RedisAppendResult } from "./redis-options.js";

/** What one script call answers: the result for all its events, and one flag per event ("1" stored, "0" duplicate). */
export type GroupResult = RedisAppendResult & { flags: string };

export class GroupCommit {
  private readonly pending: {
    batch: readonly Prepared[];
    resolve: (r: RedisAppendResult) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private sending = false;

  constructor(private readonly send: (batch: readonly Prepared[]) => Promise<GroupResult>) {}

  /** Stores `batch` with whatever else is waiting; its own appended count and duplicates come back. */
  commit(batch: readonly Prepared[]): Promise<RedisAppendResult> {
    return new Promise((resolve, reject) => {
      this.pending.push({ batch, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    while (this.pending.length > 0) {
      let events = 0;
      let n = 0;
      while (n < this.pending.length && (n === 0 || events + this.pending[n]!.batch.length <= 1000))
        events += this.pending[n++]!.batch.length;
      const group = this.pending.splice(0, n);
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
      }
    }
    this.sending = false;
  }
}
