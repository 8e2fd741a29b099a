/**
 * Following a store's event stream: a loop of blocking XREADs on a connection of its own (a blocked connection can
 * serve nothing else), delivering each batch in order; an error is reported and the read retried.
 */
import type { Redis } from "ioredis";
import type { SequencedEvent, StreamListener } from "../../src/langchain/contracts/router-store.js";

type Entry = [string, string[]];

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
    private readonly parse: (entry: Entry) => SequencedEvent,
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

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const reply = (await this.connection.xread(
          "COUNT",
          1000,
          "BLOCK",
          this.timeouts.blockMs,
          "STREAMS",
          this.key,
          `0-${this.lastSeq}`,
        )) as [string, Entry[]][] | null;
        if (this.stopped) return;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        const batch = entries.map(this.parse);
        this.lastSeq = batch[batch.length - 1]!.seq;
        this.listener.events(batch);
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

  async stop(): Promise<void> {
    if (this.stopped) return this.done;
    this.stopped = true;
    this.wake?.();
    this.connection.disconnect();
    await this.done.catch(() => undefined);
  }
}
