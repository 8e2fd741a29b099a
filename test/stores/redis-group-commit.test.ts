/**
 * RedisStore's group commit on a real redis-server: concurrent appends of one process share script calls, and each
 * caller still gets its own result (appended, duplicates as given, in order), the stream keeping the call order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../../adapters/stores/redis.js";
import { GroupCommit, type GroupResult } from "../../adapters/stores/redis-commit.js";
import type { Prepared } from "../../adapters/stores/redis-buffer.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

const ev = (id: string): FeedbackEvent => ({ id, model: "m", alpha: [0.1, 0.2], beta: 0, y: 1, at: 1 });

async function evalshaCalls(url: string): Promise<number> {
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const info = await raw.info("commandstats");
  await raw.quit();
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

describe("GroupCommit (its own logic, a fake send)", () => {
  it("callers that append again as soon as their call returns go together, not one alone and then the rest", async () => {
    const sizes: number[] = [];
    let seq = 0;
    const send = async (batch: readonly Prepared[]): Promise<GroupResult> => {
      sizes.push(batch.length);
      await new Promise((r) => setTimeout(r, 2));
      seq += batch.length;
      return { appended: batch.length, duplicates: [], seq, snapshotDue: false, flags: "1".repeat(batch.length) };
    };
    const group = new GroupCommit(send);
    // 16 callers, each appending one event at a time, 10 times (as the bench's children do).
    await Promise.all(
      Array.from({ length: 16 }, async (_, c) => {
        for (let k = 0; k < 10; k++) await group.commit([{ id: `${c}-${k}`, json: "{}" }]);
      }),
    );
    expect(sizes).toEqual(Array.from({ length: 10 }, () => 16)); // was [1, 15, 1, 15, ...] and more calls
  });
});

describe.skipIf(redisSkipReason() !== undefined)("RedisStore group commit (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("300 concurrent appends go in far fewer script calls; per-call results and the stream order are kept", async () => {
    const store = await RedisStore.open({ url: server.url, prefix: uniquePrefix("group") });
    await store.append([ev("warm")]);
    const before = await evalshaCalls(server.url);
    // Call k appends k-a and k-b; every third call repeats the previous call's k-a (a duplicate across callers).
    const batches = Array.from({ length: 300 }, (_, k) => [
      ev(`${k}-a`),
      ev(`${k}-b`),
      ...(k % 3 === 2 ? [ev(`${k - 1}-a`)] : []),
    ]);
    const results = await Promise.all(batches.map((b) => store.append(b)));
    const calls = (await evalshaCalls(server.url)) - before;
    expect(calls).toBeLessThan(100);
    results.forEach((r, k) => {
      expect(r.appended).toBe(2);
      expect(r.duplicates).toEqual(k % 3 === 2 ? [`${k - 1}-a`] : []);
    });
    const { events, seq } = await store.load();
    expect(seq).toBe(601);
    expect(events.map((e) => e.id)).toEqual(["warm", ...batches.flatMap((b) => b.slice(0, 2).map((e) => e.id))]);
    await store.close();
  });
});
