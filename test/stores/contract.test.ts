import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { RedisStore } from "../../adapters/stores/redis.js";
import { FeedbackError, StoreError } from "../../src/errors.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import type { AbilityStore } from "../../src/learning/store.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

/** The behaviour every AbilityStore shares, run against MemoryStore and FileStore. */
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

interface Harness {
  create(snapshotEvery?: number): Promise<AbilityStore>;
  /** Reopen the same store (FileStore) or return the same one (MemoryStore). */
  reopen(store: AbilityStore): Promise<AbilityStore>;
}

const harnesses: [string, () => Promise<Harness>][] = [
  [
    "MemoryStore",
    async () => ({
      create: async (snapshotEvery) => new MemoryStore({ snapshotEvery }),
      reopen: async (store) => store,
    }),
  ],
  [
    "FileStore",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "irt-store-"));
      dirs.push(dir);
      return {
        create: (snapshotEvery) => FileStore.open(dir, { snapshotEvery }),
        reopen: async (store) => {
          await store.close();
          return FileStore.open(dir);
        },
      };
    },
  ],
];

let redis: ReturnType<typeof sharedRedis> | undefined;
if (redisSkipReason() === undefined) {
  harnesses.push([
    "RedisStore",
    async () => {
      const server = await (redis ??= sharedRedis());
      const prefix = uniquePrefix("contract");
      return {
        create: (snapshotEvery) => RedisStore.open({ url: server.url, prefix, snapshotEvery }),
        reopen: async (store) => {
          await store.close();
          return RedisStore.open({ url: server.url, prefix });
        },
      };
    },
  ]);
}
afterAll(async () => (await redis)?.stop());

export function ev(i: number, patch: Partial<FeedbackEvent> = {}): FeedbackEvent {
  return { id: `e${i}`, model: "m", alpha: [0.5, -1, 2], beta: 0.25, y: i % 2, at: 1000 + i, ...patch };
}

describe.each(harnesses)("%s (AbilityStore contract)", (_name, makeHarness) => {
  it("starts empty", async () => {
    const store = await (await makeHarness()).create();
    expect(await store.load()).toEqual({ snapshot: undefined, events: [], seq: 0 });
    await store.close();
  });

  it("appends in order, assigns sequence numbers and round-trips events exactly", async () => {
    const h = await makeHarness();
    let store = await h.create();
    const events = [ev(1), ev(2, { weight: 0.5, decisionId: "d", runId: "r", y: 0.75 }), ev(3)];
    expect(await store.append(events)).toEqual({ appended: 3, duplicates: [], seq: 3, snapshotDue: false });
    store = await h.reopen(store);
    expect(await store.load()).toEqual({ snapshot: undefined, events, seq: 3 });
    await store.close();
  });

  it("(f) duplicate ids are no-ops, across calls and within one batch", async () => {
    const h = await makeHarness();
    let store = await h.create();
    await store.append([ev(1), ev(2)]);
    const r = await store.append([ev(2, { y: 1 }), ev(3), ev(3, { y: 0.5 }), ev(1)]);
    expect(r).toMatchObject({ appended: 1, duplicates: ["e2", "e3", "e1"], seq: 3 });
    store = await h.reopen(store);
    expect((await store.load()).events.map((e) => [e.id, e.y])).toEqual([
      ["e1", 1],
      ["e2", 0],
      ["e3", 1],
    ]);
    // Still a duplicate after a snapshot compacted it out of the journal.
    await store.snapshot(3, { n: 3 });
    store = await h.reopen(store);
    expect(await store.append([ev(1)])).toMatchObject({ appended: 0, duplicates: ["e1"], seq: 3 });
    await store.close();
  });

  it("(e) snapshot + compaction round-trip; snapshotDue after snapshotEvery events", async () => {
    const h = await makeHarness();
    let store = await h.create(3);
    expect((await store.append([ev(1), ev(2)])).snapshotDue).toBe(false);
    const r = await store.append([ev(3), ev(4)]);
    expect(r).toMatchObject({ seq: 4, snapshotDue: true });
    const state = { abilities: { m: [0.1, 0.2] }, note: "ünïcødé", nested: [{ a: 1 }] };
    await store.snapshot(3, state); // state covers events 1..3 only
    expect(await store.load()).toEqual({ snapshot: { seq: 3, state }, events: [ev(4)], seq: 4 });
    expect((await store.append([ev(5)])).snapshotDue).toBe(false);
    store = await h.reopen(store);
    expect(await store.load()).toEqual({ snapshot: { seq: 3, state }, events: [ev(4), ev(5)], seq: 5 });
    await store.snapshot(5, { n: 5 });
    expect(await store.load()).toEqual({ snapshot: { seq: 5, state: { n: 5 } }, events: [], seq: 5 });
    await store.close();
  });

  it("rejects a snapshot seq outside [last snapshot, last event] and a non-JSON state, changing nothing", async () => {
    const store = await (await makeHarness()).create();
    await store.append([ev(1), ev(2)]);
    await store.snapshot(1, { n: 1 });
    await expect(store.snapshot(3, {})).rejects.toThrow(StoreError);
    await expect(store.snapshot(0, {})).rejects.toThrow(
      /between the last snapshot \(1\) and the last stored event \(2\)/,
    );
    await expect(store.snapshot(1.5, {})).rejects.toThrow(StoreError);
    await expect(store.snapshot(2, { x: [1, NaN] })).rejects.toThrow(/state\.x\.1 is NaN/);
    await expect(store.snapshot(2, { f: () => 1 })).rejects.toThrow(/state\.f is a function/);
    await expect(store.snapshot(2, { m: { mean: new Float64Array(2) } })).rejects.toThrow(
      /state\.m\.mean is a Float64Array/,
    );
    await expect(store.snapshot(2, { xs: [1, undefined] })).rejects.toThrow(/state\.xs\.1 is undefined/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.snapshot(2, cyclic)).rejects.toThrow(/cycle/);
    expect(await store.load()).toEqual({ snapshot: { seq: 1, state: { n: 1 } }, events: [ev(2)], seq: 2 });
    await store.close();
  });

  it("validates events before writing: a bad one is a FeedbackError and the store is untouched", async () => {
    const h = await makeHarness();
    let store = await h.create();
    await store.append([ev(1)]);
    const bad: [Partial<FeedbackEvent> | Record<string, unknown>, RegExp][] = [
      [{ y: 1.5 }, /events\.1\.y: outcome y is 1\.5; it must be a finite number in \[0, 1\]/],
      [{ y: NaN }, /events\.1\.y/],
      [{ alpha: [1, Infinity] }, /events\.1\.alpha\.1/],
      [{ alpha: [] }, /events\.1\.alpha/],
      [{ beta: NaN }, /events\.1\.beta/],
      [{ id: "" }, /events\.1\.id/],
      [{ model: " " }, /events\.1\.model/],
      [{ weight: 0 }, /events\.1\.weight/],
      [{ at: undefined }, /events\.1\.at/],
      [{ extra: 10n }, /bigint/],
    ];
    for (const [patch, message] of bad) {
      const err = await store.append([ev(2), { ...ev(3), ...patch } as FeedbackEvent]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FeedbackError);
      expect((err as FeedbackError).code).toBe("FEEDBACK");
      expect((err as Error).message).toMatch(message);
    }
    await expect(store.append("nope" as never)).rejects.toThrow(FeedbackError);
    store = await h.reopen(store);
    expect(await store.load()).toEqual({ snapshot: undefined, events: [ev(1)], seq: 1 });
    await store.close();
  });

  it("keeps extra event fields as given and is not affected by later mutation of the caller's object", async () => {
    const h = await makeHarness();
    let store = await h.create();
    const e = { ...ev(1), alpha: [0.5, -1, 2], step: 3, tool: "search" };
    await store.append([e]);
    e.alpha[0] = 99;
    store = await h.reopen(store);
    expect((await store.load()).events[0]).toEqual({ ...ev(1), step: 3, tool: "search" });
    await store.close();
  });

  it("refuses use after close", async () => {
    const store = await (await makeHarness()).create();
    await store.close();
    await expect(store.append([ev(1)])).rejects.toThrow(StoreError);
    await expect(store.load()).rejects.toThrow(StoreError);
  });
});
