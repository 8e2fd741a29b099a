/**
 * The bounded local buffer of a RedisStore: events acknowledged while Redis is unreachable, sent in order (oldest
 * first, in batches of 500) when it returns; more than `maxEvents` are refused with a FeedbackBufferFullError.
 */
import { FeedbackBufferFullError } from "../../src/errors.js";
import type { RedisAppendResult } from "./redis-options.js";

/** One prepared event: its stored id and JSON. */
export interface Prepared {
  readonly id: string;
  readonly json: string;
}

export class EventBuffer {
  private readonly items: Prepared[] = [];
  private readonly ids = new Set<string>();
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly limits: { maxEvents: number; retryMs: number },
    private readonly send: (batch: readonly Prepared[]) => Promise<unknown>,
    /** A send failed: returns whether to keep retrying (false only when stopped). */
    private readonly failed: (error: unknown) => void,
    /** Everything buffered was sent. */
    private readonly drained: () => void,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** Buffers the new events of a batch (ids already buffered, or repeated, are duplicates). */
  add(prepared: readonly Prepared[], seq: number): RedisAppendResult {
    const fresh = prepared.filter((p, i) => !this.ids.has(p.id) && prepared.findIndex((q) => q.id === p.id) === i);
    const { maxEvents } = this.limits;
    if (this.items.length + fresh.length > maxEvents) {
      throw new FeedbackBufferFullError(
        `Redis is unreachable and the local feedback buffer is full (${this.items.length} of ${maxEvents} events); these ${fresh.length} ` +
          `event(s) were not stored. Retry them later, or raise buffer.maxEvents.`,
        { buffered: this.items.length, refused: fresh.map((p) => p.id) },
      );
    }
    for (const p of fresh) {
      this.items.push(p);
      this.ids.add(p.id);
    }
    this.schedule();
    const duplicates = prepared.filter((p) => !fresh.includes(p)).map((p) => p.id);
    return { appended: 0, buffered: fresh.length, duplicates, seq, snapshotDue: false };
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, this.limits.retryMs);
  }

  /** Sends the buffered events, oldest first; resolves when the buffer is empty or a send failed (retried later). */
  flush(): Promise<void> {
    this.flushing ??= this.flushNow().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    if (this.items.length === 0) return;
    while (this.items.length > 0) {
      const batch = this.items.slice(0, 500);
      try {
        await this.send(batch);
      } catch (error) {
        this.failed(error);
        this.schedule();
        return;
      }
      this.items.splice(0, batch.length);
      for (const b of batch) this.ids.delete(b.id);
    }
    this.drained();
  }

  /** Stops retrying and hands back what was never sent. */
  stop(): Prepared[] {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ids.clear();
    return this.items.splice(0);
  }
}
