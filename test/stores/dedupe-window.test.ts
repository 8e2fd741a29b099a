/**
 * The stores' duplicate check is a window of the latest `dedupeWindow` ids (was: every id ever stored, in memory, in
 * each FileStore snapshot and in Redis, so a long-running store grew with every event). Inside the window a repeated id
 * is a duplicate; beyond it, it is stored again. A FileStore snapshot of format 1 (every id) still opens; snapshots
 * are written in format 2 and stop growing once the window is full.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeLine, encodeSnapshot, JOURNAL_FORMAT } from "../../adapters/stores/format.js";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { RedisStore } from "../../adapters/stores/redis.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner } from "../../src/learning/learner.js";
import { DedupeWindow } from "../../src/learning/store.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

const ev = (id: string): FeedbackEvent => ({ id, model: "m", alpha: [0.1, 0.2], beta: 0, y: 1, at: 1 });
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `e${from + k}`);

const root = mkdtempSync(join(tmpdir(), "irt-router-dedupe-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = () => join(root, `s${n++}`);

describe("DedupeWindow", () => {
  it("holds the latest ids, oldest first, and forgets the oldest beyond its limit", () => {
    const w = new DedupeWindow(3);
    for (const id of ids(1, 5)) w.add(id);
    expect(w.ids()).toEqual(["e3", "e4", "e5"]);
    expect([w.has("e2"), w.has("e3"), w.size]).toEqual([false, true, 3]);
  });
});

describe.each([
  ["MemoryStore", async (o: { dedupeWindow: number }) => new MemoryStore(o)],
  ["FileStore", async (o: { dedupeWindow: number }) => FileStore.open(dir(), o)],
])("%s with dedupeWindow 5", (_, open) => {
  it("refuses a repeat inside the window and stores one beyond it again", async () => {
    const store = await open({ dedupeWindow: 5 });
    await store.append(ids(1, 8).map(ev));
    const inside = await store.append([ev("e4"), ev("e8")]);
    expect(inside).toMatchObject({ appended: 0, duplicates: ["e4", "e8"], seq: 8 });
    const beyond = await store.append([ev("e3")]); // e3 left the window (e4..e8)
    expect(beyond).toMatchObject({ appended: 1, duplicates: [], seq: 9 });
    expect([store.has("e3"), store.has("e4")]).toEqual([true, false]);
    await store.close();
  });
});

describe("FileStore snapshots", () => {
  it("stop growing once the window is full, and a reopen rebuilds the same window", async () => {
    const d = dir();
    const store = await FileStore.open(d, { dedupeWindow: 100, snapshotEvery: 50 });
    const sizes: number[] = [];
    for (let k = 0; k < 8; k++) {
      const r = await store.append(ids(1000 + 50 * k, 1049 + 50 * k).map(ev));
      expect(r.snapshotDue).toBe(true);
      await store.snapshot(r.seq, { models: {} });
      sizes.push(statSync(join(d, "snapshot.json")).size);
    }
    // 50 ids, 100, then the window's 100 from the second snapshot on (only the seq's digits may change the size).
    expect(sizes[1]! - sizes[0]!).toBeGreaterThan(50 * 5);
    for (const size of sizes.slice(2)) expect(Math.abs(size - sizes[1]!)).toBeLessThanOrEqual(2);
    expect(readFileSync(join(d, "snapshot.json"), "utf8")).toMatch(/^irt-router-snapshot 2 /);
    await store.append(ids(1400, 1419).map(ev)); // in the journal, after the snapshot
    await store.close();
    const reopened = await FileStore.open(d, { dedupeWindow: 100 });
    // The window: the last 100 of 420 events (e1320..e1419), 80 from the snapshot and 20 from the journal.
    expect([reopened.has("e1319"), reopened.has("e1320"), reopened.has("e1419")]).toEqual([false, true, true]);
    expect((await reopened.append([ev("e1320"), ev("e1319")])).duplicates).toEqual(["e1320"]);
    await reopened.close();
  });

  it("a format-1 snapshot listing every id opens: its latest ids are the window; the next snapshot is format 2", async () => {
    const d = dir();
    const all = ids(1, 30);
    const payload = JSON.stringify({ seq: 30, createdAt: "2026-12-01T00:00:00.000Z", eventIds: all, state: { a: 1 } });
    const v1 = encodeSnapshot(payload).replace(/^irt-router-snapshot 2 /, "irt-router-snapshot 1 ");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "snapshot.json"), v1);
    writeFileSync(
      join(d, "journal.jsonl"),
      encodeLine(JSON.stringify({ format: JOURNAL_FORMAT, version: 2, base: 30 })),
    );
    const store = await FileStore.open(d, { dedupeWindow: 10 });
    expect((await store.load()).snapshot).toEqual({ seq: 30, state: { a: 1 } });
    expect([store.has("e20"), store.has("e21"), store.has("e30")]).toEqual([false, true, true]);
    const r = await store.append([ev("e25"), ev("e5")]);
    expect(r).toMatchObject({ appended: 1, duplicates: ["e25"], seq: 31 });
    await store.snapshot(31, { a: 2 });
    const text = readFileSync(join(d, "snapshot.json"), "utf8");
    expect(text).toMatch(/^irt-router-snapshot 2 /);
    expect(JSON.parse(text.slice(text.indexOf("\n") + 1))).toMatchObject({
      dedupeWindow: 10,
      eventIds: ids(22, 30).concat(["e5"]),
    });
    await store.close();
  });
});

describe("OnlineLearner remembered ids", () => {
  it("a state with more remembered ids than maxRememberedIds keeps the latest", () => {
    const known = [
      { id: "a", ability: Float32Array.from([1, 0]) },
      { id: "b", ability: Float32Array.from([0, 1]) },
    ];
    const learner = new OnlineLearner(known, { maxRememberedIds: 50 });
    for (const id of ids(1, 60)) learner.observe({ ...ev(id), model: "a", alpha: [0.1, 0.2] });
    expect(learner.exportState().seenIds).toEqual(ids(11, 60));
    const state = { ...learner.exportState(), seenIds: ids(1, 60) }; // as an older default (1,000,000) kept them
    const restored = OnlineLearner.fromState(state, { maxRememberedIds: 20 });
    expect(restored.exportState().seenIds).toEqual(ids(41, 60));
  });
});

describe.skipIf(redisSkipReason() !== undefined)("RedisStore dedupe window (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("keeps the latest ids only, refuses a repeat inside the window, and still checks an id set of the old format", async () => {
    const prefix = uniquePrefix("dedupe");
    const { Redis } = await import("ioredis");
    const raw = new Redis(server.url);
    await raw.sadd(`{${prefix}}:ids`, "old-1", "old-2"); // written by a version that kept every id
    const store = await RedisStore.open({ url: server.url, prefix, dedupeWindow: 5 });
    await store.append(ids(1, 8).map(ev));
    expect(await raw.zrange(`{${prefix}}:recent-ids`, 0, -1)).toEqual(ids(4, 8));
    const r = await store.append([ev("e4"), ev("e3"), ev("old-2")]);
    expect(r).toMatchObject({ appended: 1, duplicates: ["e4", "old-2"], seq: 9 });
    expect(await raw.zcard(`{${prefix}}:recent-ids`)).toBe(5);
    expect(await raw.scard(`{${prefix}}:ids`)).toBe(2); // read, never written
    await raw.quit();
    await store.close();
  });
});
