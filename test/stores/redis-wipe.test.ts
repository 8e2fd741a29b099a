/**
 * Redis faults a RedisStore notices and survives, on a real redis-server: the store wiped (a restart without
 * persistence), entries in its stream that are not events, and values under its keys that it did not write.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RedisStore } from "../../adapters/stores/redis.js";
import { StoreGarbageError, type StoreWarning } from "../../src/errors.js";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { engineOf } from "../../src/langchain/model/router.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { redisSkipReason, sharedRedis, TestRedis, uniquePrefix } from "./redis-server.js";

const fake = () => new FakeListChatModel({ responses: ["ok"] });

function router(store: RedisStore): IrtRouter {
  return new IrtRouter({
    models: { "gpt-4": fake(), mistral: fake() },
    scorer: new ToyScorer(),
    store,
    logger: quietLogger(),
    feedbackLimits: { sourceBudget: false },
  });
}

async function decide(r: IrtRouter, tag: string): Promise<string> {
  const reply = await r.invoke(`What is ${tag}?`, { metadata: { irtRouterRunId: tag } });
  return (reply.response_metadata.irtRouter as RouteDecision).decisionId;
}

const stateOf = (r: IrtRouter) => engineOf(r).binding!.current().exportState() as { seenIds: string[] };
const applied = (r: IrtRouter) => engineOf(r).binding!.appliedSeq;

async function until(check: () => boolean, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

const skip = redisSkipReason() !== undefined;

describe.skipIf(skip)("a wiped Redis store is noticed, reported and republished", () => {
  it("two routers: Redis restarted without its data; both warn once (typed), learning resumes from their state, no drift", async () => {
    const server = await TestRedis.start();
    const warnings: StoreWarning[][] = [[], []];
    const stores = await Promise.all(
      [0, 1].map((k) =>
        RedisStore.open({
          url: server.url,
          prefix: "wipe",
          timeouts: { blockMs: 100 },
          onWarning: (_m, w) => warnings[k]!.push(w),
        }),
      ),
    );
    const routers = stores.map(router);
    for (let i = 0; i < 10; i++)
      await routers[i % 2]!.feedback(await decide(routers[i % 2]!, `before-${i}`), i % 3 > 0);
    expect(await until(() => routers.every((r) => applied(r) === 10))).toBe(true);
    const generation = stores[0]!.status().generation;

    await server.wipeAndRestart();
    const after: string[] = [];
    for (let i = 0; i < 30; i++) {
      const r = routers[i % 2]!;
      const id = await decide(r, `after-${i}`);
      after.push(id);
      await r.feedback(id, i % 2 === 0);
    }
    // Events given while the client reconnected were buffered, and are sent once it is back.
    expect(await until(() => stores.every((s) => s.bufferedCount === 0))).toBe(true);
    // Every later event reached both routers (before the fix: 0 of 30 applied), from one republished state.
    const { seq, snapshot } = await stores[0]!.load();
    expect(snapshot?.seq).toBe(10);
    expect(seq).toBe(40);
    // The router's binding and its store's status each record the applied seq; wait for both (one can lag the
    // other by a poll under load).
    expect(
      await until(() => routers.every((r) => applied(r) === 40) && stores.every((s) => s.status().appliedSeq === 40)),
    ).toBe(true);
    for (const r of routers) {
      const seen = new Set(stateOf(r).seenIds);
      for (const id of after) expect([...seen].some((s) => s.endsWith(id))).toBe(true);
      expect(seen.size).toBe(40); // the 10 events before the wipe are kept: republished, not lost
    }
    expect(JSON.stringify(stateOf(routers[0]!))).toBe(JSON.stringify(stateOf(routers[1]!)));
    for (const [k, store] of stores.entries()) {
      expect(warnings[k]!.filter((w) => w.kind === "store-wiped")).toHaveLength(1);
      expect(store.status()).toMatchObject({ wipes: 1, appliedSeq: 40, seq: 40 });
      expect(store.status().generation).not.toBe(generation);
    }
    expect(warnings.flat().filter((w) => w.kind === "store-wiped" && w.details?.republished === true)).toHaveLength(1);
    for (const s of stores) await s.close();
    await server.stop();
  }, 60_000);

  it("a router that only reads notices the wipe while the stream is idle", async () => {
    const server = await TestRedis.start();
    const kinds: string[] = [];
    const store = await RedisStore.open({
      url: server.url,
      prefix: "wipe-idle",
      timeouts: { blockMs: 50 },
      onWarning: (_m, w) => kinds.push(w.kind),
    });
    const r = router(store);
    await r.feedback(await decide(r, "one"), true);
    await server.wipeAndRestart();
    expect(await until(() => kinds.includes("store-wiped"))).toBe(true);
    expect((await store.load()).snapshot?.seq).toBe(1);
    await store.close();
    await server.stop();
  }, 30_000);
});

describe.skipIf(skip)("malformed entries and garbage under the store's keys", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("stream entries that are not JSON or not events are skipped and counted with a typed warning; routing and learning go on", async () => {
    const prefix = uniquePrefix("malformed");
    const kinds: string[] = [];
    const first = await RedisStore.open({
      url: server.url,
      prefix,
      timeouts: { blockMs: 50 },
      onWarning: (_m, w) => kinds.push(w.kind),
    });
    const live = router(first);
    await live.feedback(await decide(live, "a"), true);
    const { Redis } = await import("ioredis");
    const raw = new Redis(server.url);
    const bad: FeedbackEvent = { id: "x", model: "gpt-4", alpha: [0, 0], beta: 0, y: 5, at: 1 };
    for (const value of ["{not json", JSON.stringify(bad)]) {
      const n = await raw.incr(`{${prefix}}:seq`);
      await raw.xadd(`{${prefix}}:events`, `0-${n}`, "e", value);
    }
    await live.feedback(await decide(live, "b"), false); // seq 4, after the two bad entries
    expect(await until(() => applied(live) === 4 && first.status().appliedSeq === 4)).toBe(true);
    expect(first.status()).toMatchObject({ skippedEntries: 2, appliedSeq: 4 });
    expect(kinds.filter((k) => k === "malformed-entry")).toHaveLength(2);

    // A new router restores past them (before: a raw SyntaxError, then a FeedbackError, on every call).
    const second = await RedisStore.open({ url: server.url, prefix, onWarning: () => undefined });
    const fresh = router(second);
    await expect(fresh.invoke("still routing?")).resolves.toBeDefined();
    expect(applied(fresh)).toBe(4);
    expect(stateOf(fresh).seenIds).toHaveLength(2);
    expect(second.status().skippedEntries).toBe(2);
    await live.feedback(await decide(fresh, "c"), true).catch(() => undefined);
    await raw.quit();
    for (const s of [first, second]) await s.close();
  });

  it("a counter, snapshot, stream or decision that is not what the store writes is a StoreGarbageError naming the key", async () => {
    const prefix = uniquePrefix("garbage");
    const store = await RedisStore.open({ url: server.url, prefix });
    const { Redis } = await import("ioredis");
    const raw = new Redis(server.url);
    const ev: FeedbackEvent = { id: "e1", model: "m", alpha: [0.1], beta: 0, y: 1, at: 1 };

    await raw.set(`{${prefix}}:snapshot`, "{garbage");
    const load = await store.load().catch((e: unknown) => e);
    expect(load).toBeInstanceOf(StoreGarbageError);
    expect((load as StoreGarbageError).details?.key).toBe(`{${prefix}}:snapshot`);
    expect((load as Error).message).not.toContain("{garbage");
    await raw.del(`{${prefix}}:snapshot`);

    await raw.set(`{${prefix}}:seq`, "abc");
    expect(await store.append([ev]).catch((e: unknown) => e)).toBeInstanceOf(StoreGarbageError);
    await raw.del(`{${prefix}}:seq`, `{${prefix}}:recent-ids`);

    await raw.set(`{${prefix}}:events`, "a string, not a stream");
    const wrongType = await store.append([ev]).catch((e: unknown) => e);
    expect(wrongType).toBeInstanceOf(StoreGarbageError);
    expect((wrongType as StoreGarbageError).path).toBe("prefix");

    await raw.set(`{${prefix}}:decision:d1`, "[1,2");
    const decision = await store.decisions.get("d1").catch((e: unknown) => e);
    expect(decision).toBeInstanceOf(StoreGarbageError);
    expect((decision as StoreGarbageError).details?.key).toBe(`{${prefix}}:decision:d1`);
    await raw.set(`{${prefix}}:spend:r1`, "lots");
    expect(await store.spend.spent("r1").catch((e: unknown) => e)).toBeInstanceOf(StoreGarbageError);
    await raw.quit();
    await store.close();
  });
});
