/**
 * Feedback budgets under concurrency: N outcomes from one source sent at once never together exceed its budget, for a
 * router wired to each store (MemoryStore, FileStore, RedisStore on a real redis-server, two routers sharing it), and
 * for each store's budget ledger on its own. Before the budget was reserved atomically (it was checked before the
 * events were stored and charged after), all N were accepted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileStore } from "../../adapters/stores/file.js";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { RedisStore } from "../../adapters/stores/redis.js";
import { IrtRouter, type RouteDecision } from "../../src/langchain/index.js";
import { FeedbackBudgetError } from "../../src/errors.js";
import { MemoryBudgetLedger, type FeedbackBudgetLedger } from "../../src/learning/budget.js";
import type { RouterStore } from "../../src/core/contracts/router-store.js";
import { quietLogger } from "../langchain/helpers.js";
import { toyRouter } from "../langchain/toy-router.js";
import { redisSkipReason, sharedRedis, uniquePrefix } from "./redis-server.js";

const BUDGET = { weight: 50, windowMs: 3_600_000 };

function router(store?: RouterStore): IrtRouter {
  return toyRouter({
    logger: quietLogger(),
    feedbackLimits: { sourceBudget: BUDGET },
    ...(store ? { store } : {}),
  });
}

async function decisions(r: IrtRouter, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const reply = await r.invoke(`step ${i}`, { metadata: { irtRouterRunId: `${tag}-${i}` } });
    ids.push((reply.response_metadata.irtRouter as RouteDecision).decisionId);
  }
  return ids;
}

/** Sends one outcome per decision, all at once, from source "mallory"; returns how many were accepted. */
async function burst(targets: { router: IrtRouter; id: string }[]): Promise<number> {
  const results = await Promise.allSettled(
    targets.map(({ router: r, id }) => r.feedback(id, false, { source: "mallory" })),
  );
  for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(FeedbackBudgetError);
  return results.filter((r) => r.status === "fulfilled").length;
}

describe("a source's budget holds under concurrent feedback", () => {
  for (const n of [60, 200]) {
    it(`no store: ${n} concurrent outcomes from one source, 50 accepted`, async () => {
      const r = router();
      const ids = await decisions(r, n, "none");
      expect(await burst(ids.map((id) => ({ router: r, id })))).toBe(50);
      expect(r.feedbackEvents).toHaveLength(50);
    });

    it(`MemoryStore: ${n} concurrent outcomes from one source, 50 accepted and stored`, async () => {
      const store = new MemoryStore();
      const r = router(store);
      const ids = await decisions(r, n, "mem");
      expect(await burst(ids.map((id) => ({ router: r, id })))).toBe(50);
      expect((await store.load()).seq).toBe(50);
    });
  }

  it("FileStore: 1,000 concurrent outcomes from one source, 50 accepted and stored", async () => {
    const dir = await mkdtemp(join(tmpdir(), "irt-budget-"));
    try {
      const store = await FileStore.open(dir);
      const r = router(store);
      const ids = await decisions(r, 1000, "file");
      expect(await burst(ids.map((id) => ({ router: r, id })))).toBe(50);
      expect((await store.load()).seq).toBe(50);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a refused or failed store gives the reservation back: the source can still spend it", async () => {
    const store = new MemoryStore();
    const r = router(store);
    const ids = await decisions(r, 52, "back");
    expect(await burst(ids.slice(0, 50).map((id) => ({ router: r, id })))).toBe(50);
    expect(await burst(ids.slice(50, 51).map((id) => ({ router: r, id })))).toBe(0);
    const ledger = new MemoryBudgetLedger();
    const a = ledger.reserveNow("s", 30, BUDGET, 0);
    expect(ledger.reserveNow("s", 30, BUDGET, 1).ok).toBe(false);
    await ledger.release("s", a.token!);
    expect(ledger.reserveNow("s", 30, BUDGET, 2).ok).toBe(true);
  });

  it("MemoryBudgetLedger: 1,000 concurrent reservations of weight 0.1 charge exactly 50", async () => {
    const ledger = new MemoryBudgetLedger();
    const results = await Promise.all(Array.from({ length: 1000 }, () => ledger.reserve("s", 0.1, BUDGET, 5)));
    expect(results.filter((x) => x.ok)).toHaveLength(500);
    expect(Math.max(...results.map((x) => x.used))).toBeLessThanOrEqual(50 + 1e-9);
  });
});

describe.skipIf(redisSkipReason() !== undefined)("a source's budget holds across processes (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  for (const n of [60, 200, 1000]) {
    it(`two routers on one Redis prefix: ${n} concurrent outcomes from one source, 50 accepted and stored`, async () => {
      const prefix = uniquePrefix(`budget-${n}`);
      const stores = [
        // a loaded machine must not time the script out: a timeout charges locally by design
        await RedisStore.open({ url: server.url, prefix, timeouts: { commandMs: 30_000 } }),
        // a loaded machine must not time the script out: a timeout charges locally by design
        await RedisStore.open({ url: server.url, prefix, timeouts: { commandMs: 30_000 } }),
      ];
      const routers = stores.map((s) => router(s));
      const half = await Promise.all(routers.map((r, k) => decisions(r, n / 2, `redis-${k}`)));
      const targets = half.flatMap((ids, k) => ids.map((id) => ({ router: routers[k]!, id })));
      expect(await burst(targets)).toBe(50);
      expect((await stores[0]!.load()).seq).toBe(50);
      for (const s of stores) await s.close();
    }, 120_000);
  }

  it("RedisStore ledger: 1,000 concurrent reservations from two connections charge exactly the budget", async () => {
    const prefix = uniquePrefix("budget-ledger");
    const stores = [
      // a loaded machine must not time the script out: a timeout charges locally by design
      await RedisStore.open({ url: server.url, prefix, timeouts: { commandMs: 30_000 } }),
      // a loaded machine must not time the script out: a timeout charges locally by design
      await RedisStore.open({ url: server.url, prefix, timeouts: { commandMs: 30_000 } }),
    ];
    const ledgers: FeedbackBudgetLedger[] = stores.map((s) => s.budget);
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => ledgers[i % 2]!.reserve("s", 0.1, BUDGET, now)),
    );
    expect(results.filter((x) => x.ok)).toHaveLength(500);
    const refused = results.find((x) => !x.ok)!;
    expect(refused.used).toBeCloseTo(50, 6);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    // A released charge can be spent again; a charge that left the window no longer counts.
    await ledgers[0]!.release("s", results.find((x) => x.ok)!.token!);
    expect((await ledgers[1]!.reserve("s", 0.1, BUDGET, now)).ok).toBe(true);
    expect((await ledgers[1]!.reserve("s", 0.1, BUDGET, now + BUDGET.windowMs + 1)).ok).toBe(true);
    for (const s of stores) await s.close();
  });
});
