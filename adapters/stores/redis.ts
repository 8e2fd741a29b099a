import type { Redis } from "ioredis";
import { z } from "zod";
import { FeedbackBufferFullError, StoreError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import {
  prepareFeedbackEvents,
  StoreLedger,
  storeOptionsSchema,
  toStrictJson,
  type AppendResult,
  type LoadResult,
} from "../../src/learning/store.js";
import type {
  RouterStore,
  SequencedEvent,
  StoreSubscription,
  StreamListener,
} from "../../src/langchain/contracts/router-store.js";
import { parseWith } from "../../src/util/validate.js";
import { connect, isUnavailable } from "./redis-client.js";
import { RedisFollower } from "./redis-follow.js";
import { RedisDecisionLog, RedisSpend } from "./redis-shared.js";
import { APPEND, LOAD, runScript, SNAPSHOT, storeKeys } from "./redis-scripts.js";

const isClient = (v: unknown): boolean =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as Redis).evalsha === "function" &&
  typeof (v as Redis).duplicate === "function";

const redisStoreOptionsSchema = storeOptionsSchema
  .extend({
    /** `redis://[:password@]host:port[/db]` (or `rediss://` for TLS). Give this or `client`. */
    url: z
      .string()
      .regex(/^rediss?:\/\//, "url must start with redis:// or rediss://")
      .optional(),
    /** An ioredis client to use (not closed by `close()`); the store opens one more connection (`duplicate()`) to follow. */
    client: z.custom<Redis>(isClient, "client must be an ioredis Redis instance").optional(),
    /** Key prefix: routers sharing a prefix share learning state, decisions and budgets (default "irt-router"). */
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "prefix must be 1-100 of A-Z a-z 0-9 _ . : -")
      .default("irt-router"),
    timeouts: z
      .strictObject({
        /** Connecting (default 5000 ms). */
        connectMs: z.number().int().min(1).max(600_000).default(5000),
        /** One command, after which the server counts as unreachable (default 2000 ms). */
        commandMs: z.number().int().min(1).max(600_000).default(2000),
        /** How long a routing read (a run's spend) waits before routing goes on with the local figure (default 50 ms). */
        routingMs: z.number().int().min(1).max(60_000).default(50),
        /** How long one blocking read of the stream waits for new events (default 1000 ms). */
        blockMs: z.number().int().min(1).max(60_000).default(1000),
      })
      .prefault({}),
    buffer: z
      .strictObject({
        /** Events kept in memory while Redis is unreachable; more are refused with FeedbackBufferFullError (default 10000). */
        maxEvents: z.number().int().min(0).max(10_000_000).default(10_000),
        /** How often a buffered batch is retried (default 500 ms). */
        retryMs: z.number().int().min(1).max(600_000).default(500),
      })
      .prefault({}),
    /** How long decisions and run spend are kept for feedback on any process (seconds, default 86400: one day). */
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(365 * 86_400)
      .default(86_400),
    /** Receives one-time notes (Redis unreachable, back, a lagging follower). Default: console.warn. */
    onWarning: z
      .custom<(message: string) => void>((v) => typeof v === "function", "onWarning must be a function")
      .optional(),
  })
  .refine((o) => (o.url === undefined) !== (o.client === undefined), {
    message: "give exactly one of url and client",
    path: ["url"],
  });

/** Options of {@link RedisStore.open}. */
export type RedisStoreOptions = z.input<typeof redisStoreOptionsSchema>;
type Parsed = z.output<typeof redisStoreOptionsSchema>;

/** What {@link RedisStore.append} adds to an `AppendResult`: events held in the local buffer, sent when Redis returns. */
export interface RedisAppendResult extends AppendResult {
  buffered?: number;
}

/**
 * An {@link AbilityStore} in Redis that several processes share: every process appends to one stream of events per
 * key prefix (an event id is stored once however often and by whichever process it is sent: a server-side script
 * checks the id and adds the event atomically), snapshots live in Redis, and every router wired to it
 * (`new IrtRouter({ models, store })`) applies the stream in its order, so all reach the same learner state. It also
 * keeps the decisions feedback needs (so `router.feedback(runId)` works on any process) and each run's spend for the
 * budget policy. Redis unreachable: appends go to a bounded local buffer, sent in order when it returns.
 * Uses the optional peer dependency `ioredis`. See docs/stores.md "Many processes".
 *
 * @example
 * ```ts
 * import { RedisStore } from "irt-router/adapters";
 * const store = await RedisStore.open({ url: "redis://127.0.0.1:6379", prefix: "my-app" });
 * const router = new IrtRouter({ models, store });
 * // ...
 * await store.close();
 * ```
 */
export class RedisStore implements RouterStore {
  readonly decisions: RedisDecisionLog;
  readonly spend: RedisSpend;
  private readonly keys: ReturnType<typeof storeKeys>;
  private readonly followers = new Set<RedisFollower>();
  private readonly buffer: { id: string; json: string }[] = [];
  private readonly bufferedIds = new Set<string>();
  private flushing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private lastSeq = 0;
  private closed = false;
  private readonly warned = new Set<string>();

  private constructor(
    private readonly client: Redis,
    private readonly ownsClient: boolean,
    private readonly options: Parsed,
  ) {
    this.keys = storeKeys(options.prefix);
    this.decisions = new RedisDecisionLog(client, this.keys, options.ttlSeconds);
    this.spend = new RedisSpend(client, this.keys, options.ttlSeconds, options.timeouts.routingMs);
  }

  /** Connects (or takes `client`) after validating the options; a bad option is a ValidationError naming it. */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const parsed = parseWith(redisStoreOptionsSchema, options, "RedisStore options");
    const { connectMs, commandMs } = parsed.timeouts;
    const client = parsed.client ?? (await connect(parsed.url!, { connectMs, commandMs, name: "irt-router" }));
    return new RedisStore(client, parsed.client === undefined, parsed);
  }

  /** The key prefix. */
  get prefix(): string {
    return this.options.prefix;
  }

  /** Events acknowledged while Redis was unreachable and not yet sent. */
  get bufferedCount(): number {
    return this.buffer.length;
  }

  /**
   * Stores new events in order (duplicates by id are no-ops, across processes). Resolves once Redis has them (durable
   * as its persistence setting makes them: `appendfsync always` for every acknowledged event to survive a crash of
   * the server), or, when Redis is unreachable, once they are in the local buffer (`buffered` in the result; sent in
   * order when Redis returns; lost only if this process ends first). A full buffer refuses the batch with
   * {@link FeedbackBufferFullError}.
   */
  async append(events: readonly FeedbackEvent[]): Promise<RedisAppendResult> {
    this.ensureOpen();
    const prepared = prepareFeedbackEvents(events).map((p) => ({ id: p.event.id, json: p.json }));
    if (this.buffer.length === 0) {
      try {
        return await this.send(prepared);
      } catch (error) {
        if (!isUnavailable(error))
          throw new StoreError(`Redis refused the events: ${(error as Error).message}`, { cause: error });
        this.warnOnce(
          "down",
          `irt-router: Redis is unreachable (${(error as Error).message}); feedback is buffered locally and sent when it returns.`,
        );
      }
    }
    return this.bufferEvents(prepared);
  }

  private async send(batch: readonly { id: string; json: string }[]): Promise<RedisAppendResult> {
    const keys = this.keys;
    const args = batch.flatMap((b) => [b.id, b.json]);
    const [appended, seq, snapshotSeq, duplicates] = (await runScript(
      this.client,
      APPEND,
      [keys.ids, keys.seq, keys.events, keys.snapshotSeq],
      args,
    )) as [number, number, number, string[]];
    this.lastSeq = Math.max(this.lastSeq, seq);
    return { appended, duplicates, seq, snapshotDue: seq - snapshotSeq >= this.options.snapshotEvery };
  }

  private bufferEvents(prepared: { id: string; json: string }[]): RedisAppendResult {
    const fresh = prepared.filter(
      (p, i) => !this.bufferedIds.has(p.id) && prepared.findIndex((q) => q.id === p.id) === i,
    );
    const { maxEvents } = this.options.buffer;
    if (this.buffer.length + fresh.length > maxEvents) {
      throw new FeedbackBufferFullError(
        `Redis is unreachable and the local feedback buffer is full (${this.buffer.length} of ${maxEvents} events); these ${fresh.length} ` +
          `event(s) were not stored. Retry them later, or raise buffer.maxEvents.`,
        { buffered: this.buffer.length, refused: fresh.map((p) => p.id) },
      );
    }
    for (const p of fresh) {
      this.buffer.push(p);
      this.bufferedIds.add(p.id);
    }
    this.scheduleRetry();
    const duplicates = prepared.filter((p) => !fresh.includes(p)).map((p) => p.id);
    return { appended: 0, buffered: fresh.length, duplicates, seq: this.lastSeq, snapshotDue: false };
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush().catch(() => undefined);
    }, this.options.buffer.retryMs);
  }

  /** Sends the buffered events, oldest first; resolves when the buffer is empty or Redis is still unreachable. */
  flush(): Promise<void> {
    this.flushing ??= this.flushNow().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, 500);
      try {
        await this.send(batch);
      } catch (error) {
        if (!isUnavailable(error)) {
          this.warnOnce(
            `refused:${(error as Error).message}`,
            `irt-router: Redis refused buffered events (${(error as Error).message}); they stay buffered.`,
          );
        }
        this.scheduleRetry();
        return;
      }
      this.buffer.splice(0, batch.length);
      for (const b of batch) this.bufferedIds.delete(b.id);
    }
    if (this.warned.delete("down"))
      (this.options.onWarning ?? console.warn)("irt-router: Redis is reachable again; buffered feedback was sent.");
  }

  async load(): Promise<LoadResult> {
    this.ensureOpen();
    const k = this.keys;
    const [snap, snapshotSeq, seq, entries] = (await runScript(
      this.client,
      LOAD,
      [k.snapshot, k.snapshotSeq, k.seq, k.events],
      [],
    )) as [string | null, number, number, [string, string[]][]];
    this.lastSeq = Math.max(this.lastSeq, seq);
    return {
      snapshot: snap === null ? undefined : { seq: snapshotSeq, state: JSON.parse(snap) as unknown },
      events: entries.map((e) => parseEntry(e).event),
      seq,
    };
  }

  async snapshot(seq: number, state: unknown): Promise<void> {
    this.ensureOpen();
    const check: StoreLedger = new StoreLedger(1);
    if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0) check.checkSnapshotSeq(seq);
    const json = toStrictJson(state, "state");
    const k = this.keys;
    const [written, current, last] = (await runScript(
      this.client,
      SNAPSHOT,
      [k.snapshot, k.snapshotSeq, k.seq, k.events],
      [seq, json],
    )) as number[];
    if (written === 1) return;
    const ledger: StoreLedger = new StoreLedger(1);
    ledger.snapshotSeq = current!;
    ledger.seq = last!;
    try {
      ledger.checkSnapshotSeq(seq);
    } catch (error) {
      // `stale`: another process snapshotted a later state meanwhile (the router ignores that).
      throw new StoreError((error as Error).message, {
        path: "seq",
        details: { stale: seq < current!, snapshotSeq: current, seq: last },
      });
    }
  }

  async eventsAfter(afterSeq: number): Promise<SequencedEvent[]> {
    this.ensureOpen();
    const entries = (await this.client.xrange(this.keys.events, `0-${afterSeq + 1}`, "+")) as [string, string[]][];
    return entries.map(parseEntry);
  }

  /** Delivers every event stored after `afterSeq`, in order, from a blocking read on a connection of its own. */
  follow(afterSeq: number, listener: StreamListener): StoreSubscription {
    this.ensureOpen();
    const follower = new RedisFollower(
      this.client,
      this.keys.events,
      afterSeq,
      listener,
      this.options.timeouts,
      parseEntry,
    );
    this.followers.add(follower);
    return {
      stop: async () => {
        this.followers.delete(follower);
        await follower.stop();
      },
    };
  }

  /**
   * Stops following, sends what is buffered (a StoreError lists the events still unsent when Redis stays
   * unreachable: they were acknowledged, so keep them), and closes the connection (not a `client` you gave).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    await Promise.all([...this.followers].map((f) => f.stop()));
    this.followers.clear();
    await this.flush();
    this.closed = true;
    const unsent = this.buffer.splice(0);
    if (this.ownsClient) await this.client.quit().catch(() => this.client.disconnect());
    if (unsent.length > 0) {
      throw new StoreError(
        `RedisStore closed with ${unsent.length} buffered event(s) Redis never received (it stayed unreachable); details.events has them.`,
        {
          details: { events: unsent.map((u) => JSON.parse(u.json) as unknown) },
        },
      );
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    (this.options.onWarning ?? console.warn)(message);
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError("This RedisStore was closed; open a new one (RedisStore.open).");
  }
}

function parseEntry([id, fields]: [string, string[]]): SequencedEvent {
  const at = fields.indexOf("e");
  return { seq: Number(id.slice(id.indexOf("-") + 1)), event: JSON.parse(fields[at + 1]!) as FeedbackEvent };
}
