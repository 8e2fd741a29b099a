/**
 * Following a store's event stream: a loop of blocking XREADs on a connection of its own (a blocked connection can
 * serve nothing else), delivering each batch in order (a malformed entry is reported as skipped, in its place); an
 * error is reported and the read retried; while the stream is idle the store's `idle` check runs (its generation).
 */
import type { Redis } from "ioredis";
import type { SequencedEvent, StreamListener } from "../../src/core/contracts/router-store.js";

type Entry = [string, string[]];

/** A stream entry as read: an event, or the reason it was skipped. */
export type ParsedEntry = SequencedEvent | { readonly seq: number; readonly problem: string };

export class RedisFollower {
  private stopped = false;
  private readonly connection: Redis;
  private readonly done: Promise<void>;
  private wake?: () => void;

  constructor(
    client: Redis,
    private readonly key: string,
    private lastSeq: number,
    private readonly listener: StreamListener,
    private readonly timeouts: { blockMs: number; commandMs: number },
    private readonly parse: (entry: Entry) => ParsedEntry,
    private readonly idle: () => Promise<void> = async () => undefined,
  ) {
    // No command timeout on the blocking connection: a read waits up to blockMs by design.
    // Its reads queue while it connects (one at a time), so the first read does not fail on a connection not yet ready.
    this.connection = client.duplicate({
      commandTimeout: undefined,
      connectionName: "irt-router-follow",
      lazyConnect: false,
      enableOfflineQueue: true,
    });
    this.connection.on("error", () => undefined);
    this.done = this.loop();
  }

  /** Reads on from `seq` (after the store was republished at it). */
  resetTo(seq: number): void {
    this.lastSeq = seq;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const from = this.lastSeq;
        const reply = (await this.connection.xread(
          "COUNT",
          1000,
          "BLOCK",
          this.timeouts.blockMs,
          "STREAMS",
          this.key,
          `0-${from}`,
        )) as [string, Entry[]][] | null;
        if (this.stopped) return;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) {
          await this.idle();
          continue;
        }
        if (this.lastSeq !== from) continue; // reset while reading
        this.deliver(entries.map(this.parse));
      } catch (error) {
        if (this.stopped) return;
        this.listener.error?.(error);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, Math.min(this.timeouts.commandMs, 500));
        });
      }
    }
  }

  /** Delivers the events in order, each run of valid ones as one batch, a skipped entry between them. */
  private deliver(parsed: readonly ParsedEntry[]): void {
    let batch: SequencedEvent[] = [];
    const flush = () => {
      if (batch.length > 0) this.listener.events(batch);
      batch = [];
    };
    for (const p of parsed) {
      this.lastSeq = p.seq;
      if ("event" in p) batch.push(p);
      else {
        flush();
        this.listener.skipped?.(p.seq);
      }
    }
    flush();
  }

  async stop(): Promise<void> {
    if (this.stopped) return this.done;
    this.stopped = true;
    this.wake?.();
    this.connection.disconnect();
    await this.done.catch(() => undefined);
  }
}
