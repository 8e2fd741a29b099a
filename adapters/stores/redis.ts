import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { StoreError, StoreWarning, type StoreWarningKind } from "../../src/errors.js";
import type { FeedbackBudgetLedger } from "../../src/learning/budget.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { StoreEventRules, StoreLedger, toStrictJson, type LoadResult } from "../../src/learning/store.js";
import type {
  RouterStore,
  SequencedEvent,
  StoreSubscription,
  StreamListener,
} from "../../src/core/contracts/router-store.js";
import { parseWith } from "../../src/util/validate.js";
import { EventBuffer, type Prepared } from "./redis-buffer.js";
import { GroupCommit } from "./redis-commit.js";
import { connect, isUnavailable } from "./redis-client.js";
import { parseEntry, refusal, type Entry, type RedisStoreStatus } from "./redis-entries.js";
import { RedisFollower, type ParsedEntry } from "./redis-follow.js";
import { garbage } from "./redis-garbage.js";
import {
  redisStoreOptionsSchema,
  type RedisAppendResult,
  type RedisParsedOptions as Parsed,
  type RedisStoreOptions,
} from "./redis-options.js";
import { RedisBudget, RedisDecisionLog, RedisSpend } from "./redis-shared.js";
import { APPEND, INIT, LOAD, REPUBLISH, runScript, SNAPSHOT, storeKeys } from "./redis-scripts.js";

export type { RedisAppendResult, RedisStoreOptions } from "./redis-options.js";
export type { RedisStoreStatus } from "./redis-entries.js";

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
  /** Feedback budgets every process of the prefix charges atomically (a server-side script). */
  readonly budget: FeedbackBudgetLedger;
  private readonly keys: ReturnType<typeof storeKeys>;
  private readonly rules: StoreEventRules;
  private readonly followers = new Set<{ follower: RedisFollower; listener: StreamListener }>();
  private readonly buffer: EventBuffer;
  /** Concurrent appends of this process, sent together (group commit). */
  private readonly group = new GroupCommit((batch) => this.send(batch));
  private lastSeq = 0;
  private followedSeq = 0;
  private skipped = 0;
  private wipes = 0;
  private recovering?: Promise<void>;
  private stateSource?: () => { seq: number; state: unknown } | undefined;
  private closed = false;
  private readonly warned = new Set<string>();

  private constructor(
    private readonly client: Redis,
    private readonly ownsClient: boolean,
    private readonly options: Parsed,
    private generation: string,
  ) {
    this.keys = storeKeys(options.prefix);
    this.rules = new StoreEventRules(options);
    this.buffer = new EventBuffer(
      options.buffer,
      (batch) => this.send(batch),
      (error) => {
        if (isUnavailable(error)) return;
        const message = (error as Error).message;
        this.warnOnce(
          `refused:${message}`,
          "refused",
          `irt-router: Redis refused buffered events (${message}); they stay buffered.`,
        );
      },
      () => {
        if (this.warned.delete("down"))
          this.warn("reachable", "irt-router: Redis is reachable again; buffered feedback was sent.", {});
      },
    );
    const hash = options.hashRunIds ? (id: string) => this.rules.storedId(id) : undefined;
    this.decisions = new RedisDecisionLog(client, this.keys, options.ttlSeconds, hash);
    this.spend = new RedisSpend(client, this.keys, options.ttlSeconds, options.timeouts.routingMs, hash);
    this.budget = new RedisBudget(
      client,
      this.keys,
      (source) => this.rules.storedId(source),
      (error) =>
        this.warnOnce(
          "budget-local",
          "budget-local",
          `irt-router: Redis is unreachable (${(error as Error).message}); feedback budgets are charged in this process until it returns.`,
        ),
    );
  }

  /** Connects (or takes `client`) after validating the options; a bad option is a ValidationError naming it. */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const parsed = parseWith(redisStoreOptionsSchema, options, "RedisStore options");
    const { connectMs, commandMs } = parsed.timeouts;
    const client = parsed.client ?? (await connect(parsed.url!, { connectMs, commandMs, name: "irt-router" }));
    const keys = storeKeys(parsed.prefix);
    let generation: unknown;
    try {
      generation = await runScript(client, INIT, [keys.generation], [randomUUID()]);
    } catch (error) {
      if (parsed.client === undefined) client.disconnect();
      throw refusal(error, keys, "open the store");
    }
    if (typeof generation !== "string") throw garbage(keys.generation, "a generation id", generation);
    return new RedisStore(client, parsed.client === undefined, parsed, generation);
  }

  /** The key prefix. */
  get prefix(): string {
    return this.options.prefix;
  }

  /** Events acknowledged while Redis was unreachable and not yet sent. */
  get bufferedCount(): number {
    return this.buffer.size;
  }

  /**
   * What an operator checks to see that learning is live: the store's `generation` (changes when a wiped store is
   * republished), the last sequence number this process saw stored (`seq`) and delivered from the stream to its
   * followers (`appliedSeq`), the stream entries skipped as malformed, the wipes survived, and the events buffered.
   */
  status(): RedisStoreStatus {
    return {
      generation: this.generation,
      seq: Math.max(this.lastSeq, this.followedSeq),
      appliedSeq: this.followedSeq,
      skippedEntries: this.skipped,
      wipes: this.wipes,
      buffered: this.buffer.size,
    };
  }

  /**
   * Gives the store what to republish when it finds itself wiped (Redis restarted without persistence): a state and
   * the sequence number it covers. A router wired to the store registers its learner. Without one, a wiped store
   * starts afresh at the last sequence number seen, with a warning.
   */
  republishFrom(source: () => { seq: number; state: unknown } | undefined): void {
    this.stateSource = source;
  }

  /**
   * Stores new events in order (duplicates by id are no-ops, across processes). Resolves once Redis has them (durable
   * as its persistence setting makes them: `appendfsync always` for every acknowledged event to survive a crash of
   * the server), or, when Redis is unreachable, once they are in the local buffer (`buffered` in the result; sent in
   * order when Redis returns; lost only if this process ends first). A full buffer refuses the batch with
   * {@link FeedbackBufferFullError}. With `hashRunIds`, run ids, event ids and sources are stored as pseudonyms.
   */
  async append(events: readonly FeedbackEvent[]): Promise<RedisAppendResult> {
    this.ensureOpen();
    const prepared = this.rules.prepare(events).map((p) => ({ id: p.event.id, json: p.json }));
    if (this.buffer.size === 0) {
      try {
        const result = await this.group.commit(prepared);
        const asGiven = prepared.map((p) => ({ event: { id: p.id } as FeedbackEvent }));
        return { ...result, duplicates: this.rules.givenIds(result.duplicates, events, asGiven) };
      } catch (error) {
        if (!isUnavailable(error)) throw refusal(error, this.keys, "store the events");
        this.warnOnce(
          "down",
          "unreachable",
          `irt-router: Redis is unreachable (${(error as Error).message}); feedback is buffered locally and sent when it returns.`,
        );
      }
    }
    return this.buffer.add(prepared, this.lastSeq);
  }

  private async send(batch: readonly Prepared[]): Promise<RedisAppendResult & { flags: string }> {
    const keys = this.keys;
    const args = batch.flatMap((b) => [b.id, b.json]);
    for (let attempt = 0; ; attempt++) {
      const reply = (await runScript(
        this.client,
        APPEND,
        [keys.ids, keys.seq, keys.events, keys.snapshotSeq, keys.generation],
        [this.generation, ...args],
      )) as unknown[];
      if (reply[0] === -1) {
        if (attempt > 2) throw new StoreError("The Redis store was reset repeatedly while appending; retry later.");
        await this.recover(typeof reply[1] === "string" ? reply[1] : null);
        continue;
      }
      const [appended, seq, snapshotSeq, duplicates, flags] = reply as [number, number, number, string[], string];
      if (typeof seq !== "number" || typeof snapshotSeq !== "number")
        throw garbage(keys.seq, "an integer (the last sequence number)", seq);
      this.lastSeq = Math.max(this.lastSeq, seq);
      const snapshotDue = seq - snapshotSeq >= this.options.snapshotEvery;
      return { appended, duplicates, seq, snapshotDue, flags: String(flags ?? "") };
    }
  }

  /**
   * The store's generation is not the one this process knew: it was wiped (Redis restarted without persistence,
   * FLUSHALL) or another process republished it after a wipe. Republishes this process's state when the store holds
   * nothing newer (else adopts the other's), warns with a typed `store-wiped` {@link StoreWarning}, and has every
   * follower restore from the republished snapshot, so all processes go on from one state (no silent drift).
   */
  private recover(seen: string | null): Promise<void> {
    this.recovering ??= this.recoverNow(seen).finally(() => (this.recovering = undefined));
    return this.recovering;
  }

  private async recoverNow(seen: string | null): Promise<void> {
    if (seen === this.generation) return;
    const k = this.keys;
    const held = this.stateSource?.();
    const seq = held?.seq ?? this.lastSeq;
    const state = held ? toStrictJson(this.rules.storedState(held.state), "state") : undefined;
    const fresh = randomUUID();
    let written = 0;
    let generation: string;
    if (state !== undefined) {
      [written, generation] = (await runScript(
        this.client,
        REPUBLISH,
        [k.generation, k.seq, k.snapshot, k.snapshotSeq, k.events, k.ids],
        [this.generation, fresh, seq, state],
      )) as [number, string];
    } else {
      generation = String(await runScript(this.client, INIT, [k.generation], [fresh]));
    }
    const before = this.generation;
    this.generation = generation;
    this.wipes++;
    const { seq: now } = await this.loadRaw(false);
    this.lastSeq = now;
    const details = { previous: before, generation, republished: written === 1, seq: now };
    this.warn(
      "store-wiped",
      written === 1
        ? `irt-router: the Redis store "${this.prefix}" was wiped (its generation marker was gone: Redis restarted without persistence, or it was flushed); ` +
            `this process republished its learner state (event ${seq}) and learning goes on from it. Events stored only in the lost data are gone; ` +
            `turn on Redis persistence (appendonly yes) to keep them.`
        : state === undefined
          ? `irt-router: the Redis store "${this.prefix}" was wiped or reset (its generation changed); no learner state to republish here, so it goes on from what the store holds (event ${now}).`
          : `irt-router: the Redis store "${this.prefix}" was wiped and another process republished its learner state (event ${now}); this process restores from it.`,
      details,
    );
    for (const { follower, listener } of this.followers) {
      follower.resetTo(now);
      listener.reset?.(details);
    }
  }

  /** Sends the buffered events, oldest first; resolves when the buffer is empty or Redis is still unreachable. */
  flush(): Promise<void> {
    return this.buffer.flush();
  }

  /**
   * The latest snapshot and the events after it. A stream entry that is not a valid event is skipped, counted in
   * `status().skippedEntries` and reported once as a `malformed-entry` {@link StoreWarning}; a snapshot or counter
   * that is not what the store writes is a {@link StoreGarbageError} naming its key.
   */
  async load(): Promise<LoadResult> {
    this.ensureOpen();
    return this.loadRaw(true);
  }

  private async loadRaw(withEvents: boolean): Promise<LoadResult> {
    const k = this.keys;
    let reply: [string | null, number, number, Entry[]];
    try {
      reply = (await runScript(this.client, LOAD, [k.snapshot, k.snapshotSeq, k.seq, k.events], [])) as typeof reply;
    } catch (error) {
      throw refusal(error, k, "load the store");
    }
    const [snap, snapshotSeq, seq, entries] = reply;
    if (typeof seq !== "number") throw garbage(k.seq, "an integer (the last sequence number)", seq);
    if (typeof snapshotSeq !== "number") throw garbage(k.snapshotSeq, "an integer (a sequence number)", snapshotSeq);
    this.lastSeq = Math.max(this.lastSeq, seq);
    let state: unknown;
    if (snap !== null) {
      try {
        state = JSON.parse(snap);
      } catch {
        throw garbage(k.snapshot, "a learner state (JSON)", snap);
      }
    }
    return {
      snapshot: snap === null ? undefined : { seq: snapshotSeq, state },
      events: withEvents ? this.parseEntries(entries).map((e) => e.event) : [],
      seq,
    };
  }

  async snapshot(seq: number, state: unknown): Promise<void> {
    this.ensureOpen();
    const check: StoreLedger = new StoreLedger(1);
    if (typeof seq !== "number" || !Number.isInteger(seq) || seq < 0) check.checkSnapshotSeq(seq);
    const json = toStrictJson(this.rules.storedState(state), "state");
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

  /** Events stored after `afterSeq`, in order; malformed entries are skipped (see {@link RedisStore.load}). */
  async eventsAfter(afterSeq: number): Promise<SequencedEvent[]> {
    this.ensureOpen();
    const entries = (await this.client.xrange(this.keys.events, `0-${afterSeq + 1}`, "+")) as Entry[];
    return this.parseEntries(entries);
  }

  /**
   * Delivers every event stored after `afterSeq`, in order, from a blocking read on a connection of its own. A
   * malformed entry is skipped (`listener.skipped(seq)`, counted, warned once); while the stream is idle the store
   * checks its generation, so a wiped store is noticed even by a process that only reads.
   */
  follow(afterSeq: number, listener: StreamListener): StoreSubscription {
    this.ensureOpen();
    const follower = new RedisFollower(
      this.client,
      this.keys.events,
      afterSeq,
      {
        events: (batch) => {
          if (batch.length > 0) this.followedSeq = Math.max(this.followedSeq, batch[batch.length - 1]!.seq);
          listener.events(batch);
        },
        skipped: (seq) => {
          this.followedSeq = Math.max(this.followedSeq, seq);
          listener.skipped?.(seq);
        },
        error: (error) => listener.error?.(error),
      },
      this.options.timeouts,
      (entry) => this.parseOne(entry),
      () => this.checkGeneration(),
    );
    const entry = { follower, listener };
    this.followers.add(entry);
    return {
      stop: async () => {
        this.followers.delete(entry);
        await follower.stop();
      },
    };
  }

  /** Compares the store's generation with this process's; a change starts the recovery (see `recover`). */
  private async checkGeneration(): Promise<void> {
    if (this.closed || this.recovering) return;
    const seen = await this.client.get(this.keys.generation);
    if (seen !== this.generation) await this.recover(seen);
  }

  private parseEntries(entries: readonly Entry[]): SequencedEvent[] {
    const out: SequencedEvent[] = [];
    for (const entry of entries) {
      const parsed = this.parseOne(entry);
      if ("event" in parsed) out.push(parsed);
    }
    return out;
  }

  /** An entry as an event, or (counted, warned) why it is skipped. */
  private parseOne(entry: Entry): ParsedEntry {
    const parsed = parseEntry(entry, this.options.itemBounds);
    if ("problem" in parsed) {
      this.skipped++;
      this.warnOnce(
        `malformed:${parsed.seq}`,
        "malformed-entry",
        `irt-router: stream entry ${entry[0]} of the Redis store "${this.prefix}" is not a valid feedback event (${parsed.problem}); ` +
          `it was skipped (${this.skipped} skipped so far). Something other than irt-router writes under this prefix.`,
        { seq: parsed.seq, problem: parsed.problem, skipped: this.skipped },
      );
    }
    return parsed;
  }

  /**
   * Stops following, sends what is buffered (a StoreError lists the events still unsent when Redis stays
   * unreachable: they were acknowledged, so keep them), and closes the connection (not a `client` you gave).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.followers].map((f) => f.follower.stop()));
    this.followers.clear();
    await this.flush();
    this.closed = true;
    const unsent = this.buffer.stop();
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

  private warn(kind: StoreWarningKind, message: string, details: Record<string, unknown>): void {
    (this.options.onWarning ?? console.warn)(message, new StoreWarning(kind, message, { details }));
  }

  private warnOnce(key: string, kind: StoreWarningKind, message: string, details: Record<string, unknown> = {}): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warn(kind, message, details);
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError("This RedisStore was closed; open a new one (RedisStore.open).");
  }
}
