/**
 * RedisStore.load() reads the stream in pages (LOAD_PAGE entries a read), not in one script returning the whole
 * stream: a long stream neither blocks Redis for the whole read nor builds one giant reply. A snapshot that trims the
 * stream between two pages makes the load start over from it, never skip events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../../adapters/stores/redis.js";
import { LOAD_PAGE } from "../../adapters/stores/redis-scripts.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

const ev = (id: string): FeedbackEvent => ({ id, model: "m", alpha: [0.1, 0.2], beta: 0, y: 1, at: 1 });

async function xrangeCalls(url: string): Promise<number> {
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const info = await raw.info("commandstats");
  await raw.quit();
  return Number(/cmdstat_xrange:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

describe.skipIf(redisSkipReason() !== undefined)("RedisStore.load pages (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("a stream of 2.5 pages loads whole and in order, in one read per page", async () => {
    const store = await RedisStore.open({ url: server.url, prefix: uniquePrefix("pages"), snapshotEvery: 100_000 });
    const n = Math.floor(LOAD_PAGE * 2.5);
    const ids = Array.from({ length: n }, (_, k) => `e${k + 1}`);
    for (let k = 0; k < n; k += 500) await store.append(ids.slice(k, k + 500).map(ev));
    const before = await xrangeCalls(server.url);
    const { events, seq } = await store.load();
    const reads = (await xrangeCalls(server.url)) - before;
    expect(seq).toBe(n);
    expect(events.map((e) => e.id)).toEqual(ids);
    expect(reads).toBe(3); // one XRANGE with COUNT per page (in the script for the first): never one of the whole stream
    await store.close();
  });

  it("a load after snapshots reads only the events after the latest snapshot", async () => {
    const store = await RedisStore.open({ url: server.url, prefix: uniquePrefix("pages-snap") });
    const n = LOAD_PAGE + 300;
    const ids = Array.from({ length: n }, (_, k) => `e${k + 1}`);
    for (let k = 0; k < n; k += 500) await store.append(ids.slice(k, k + 500).map(ev));
    await store.snapshot(200, { at: 200 });
    const { snapshot, events, seq } = await store.load();
    expect(snapshot).toEqual({ seq: 200, state: { at: 200 } });
    expect(events.map((e) => e.id)).toEqual(ids.slice(200));
    expect(seq).toBe(n);
    await store.close();
  });
});
