/**
 * RedisRunOutcomeLog on a real redis-server: two routers (two connections, as two replicas) syncing through one
 * prefix, pages and cursors, a wiped log, a replica resumed from its checkpoint, records another program wrote, garbage
 * under its keys, options, and the server going away under a sync (nothing lost, pushed when it is back).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRunOutcomeLog, REDIS_OUTCOME_PAGE, runOutcomeKeys } from "../../adapters/stores/run-outcome-redis.js";
import { RedisConnectionError, StoreError, StoreGarbageError, ValidationError } from "../../src/errors.js";
import { RunRouter, type RunPrior, type SharedRunOutcome } from "../../src/runs/index.js";
import { redisSkipReason, sharedRedis, TestRedis, uniquePrefix } from "./redis-server.js";
import { outcome } from "./fixtures/run-outcome.js";

const MODELS = { strong: { runCost: 3 }, middle: { runCost: 1 }, weak: { runCost: 0.1 } };

async function raw(url: string) {
  const { Redis } = await import("ioredis");
  return new Redis(url);
}

describe.skipIf(redisSkipReason() !== undefined)("RedisRunOutcomeLog (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("two replicas syncing through one prefix reach the same outcomes and the same decision", async () => {
    const prefix = uniquePrefix("run-sync");
    const [logA, logB] = await Promise.all([0, 1].map(() => RedisRunOutcomeLog.open({ url: server.url, prefix })));
    const a = new RunRouter({ models: MODELS, costWeight: 0.2 });
    const b = new RunRouter({ models: MODELS, costWeight: 0.2 });
    for (let t = 0; t < 12; t++) {
      const task = { id: `t${t}`, text: `job word${t}${" more".repeat(t % 3)}`, hint: t % 2 ? "odd" : "even" };
      const router = t % 2 ? b : a;
      router.feedback(task, "strong", t % 5 !== 0);
      router.feedback(task, "weak", t % 3 === 0);
    }
    expect(await a.sync(logA)).toMatchObject({ pushed: 12, pulled: 0, skipped: 0 });
    expect(await b.sync(logB)).toMatchObject({ pushed: 12, pulled: 12, skipped: 0 });
    expect(await a.sync(logA)).toMatchObject({ pushed: 0, pulled: 12, skipped: 0 });
    expect([a.feedbackCount, b.feedbackCount]).toEqual([24, 24]);
    // Words only some past tasks share, each task by another amount (no ties, which the difficulty prior breaks by
    // the order the router learnt the tasks in, which differs between replicas).
    const task = { id: "new", text: "word3 word3 word8 word5 word5 word5", hint: "odd" };
    const [da, db] = [a.route(task), b.route(task)];
    expect(db.chosen).toBe(da.chosen);
    for (const c of da.candidates) expect(db.candidates.find((x) => x.modelId === c.modelId)!.p).toBeCloseTo(c.p, 6);
    await Promise.all([logA.close(), logB.close()]);
  });

  it("reads in pages of 256 in append order; a cursor reads on after later appends", async () => {
    const log = await RedisRunOutcomeLog.open({ url: server.url, prefix: uniquePrefix("run-pages") });
    expect(await log.read()).toMatchObject({ outcomes: [] }); // no log yet
    await log.append(Array.from({ length: 600 }, (_, k) => outcome(`o${k}`)));
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await log.read(cursor);
      expect(page.outcomes.length).toBeLessThanOrEqual(REDIS_OUTCOME_PAGE);
      if (page.outcomes.length === 0) break;
      ids.push(...(page.outcomes as SharedRunOutcome[]).map((o) => o.id));
      cursor = page.cursor;
    }
    expect(ids).toEqual(Array.from({ length: 600 }, (_, k) => `o${k}`));
    await log.append([outcome("late")]);
    expect((await log.read(cursor)).outcomes).toEqual([outcome("late")]);
    await expect(log.read("no cursor")).rejects.toThrow(ValidationError);
    await log.close();
    await expect(log.read()).rejects.toThrow(StoreError);
  });

  it("a wiped log gets a new id at the next append, and old cursors read it from its start", async () => {
    const prefix = uniquePrefix("run-wipe");
    const log = await RedisRunOutcomeLog.open({ url: server.url, prefix });
    await log.append([outcome("one"), outcome("two")]);
    const { cursor } = await log.read();
    const client = await raw(server.url);
    const keys = runOutcomeKeys(prefix);
    await client.del(keys.outcomes, keys.log);
    expect(await log.read(cursor)).toMatchObject({ outcomes: [] });
    await log.append([outcome("after-wipe")]);
    const page = await log.read(cursor);
    expect(page.outcomes).toEqual([outcome("after-wipe")]);
    expect(page.cursor.split(":")[0]).not.toBe(cursor.split(":")[0]);
    // A list cut from outside below a cursor: read from its start.
    await log.append([outcome("three")]);
    const end = (await log.read(page.cursor)).cursor;
    await client.ltrim(keys.outcomes, 0, 0);
    expect((await log.read(end)).outcomes).toEqual([outcome("after-wipe")]);
    await client.quit();
    await log.close();
  });

  it("records another program pushed are skipped and counted by a router; garbage under a key is named", async () => {
    const prefix = uniquePrefix("run-garbage");
    const log = await RedisRunOutcomeLog.open({ url: server.url, prefix });
    await log.append([outcome("good")]);
    const client = await raw(server.url);
    const keys = runOutcomeKeys(prefix);
    await client.rpush(
      keys.outcomes,
      "not json",
      JSON.stringify(outcome("__proto__")),
      JSON.stringify(outcome("unknown", { model: "gpt-9" })),
      JSON.stringify({ ...outcome("nan"), outcome: "NaN" }),
      "x".repeat(2 ** 20 + 1),
    );
    const router = new RunRouter({ models: MODELS });
    const result = await router.sync(log);
    expect(result).toMatchObject({ pulled: 1, skipped: 5 });
    expect(result.skips.map((s) => s.reason)).toEqual([
      "the record at index 1 is not JSON",
      "the record at index 5 is 1048577 characters long, over the 1048576 a record may have",
      expect.stringMatching(/^not a valid run outcome: id: "__proto__" cannot be an outcome id/),
      'model "gpt-9" is not one of this router\'s models',
      expect.stringMatching(/^not a valid run outcome: outcome: /),
    ]);
    expect(router.feedbackCount).toBe(1);

    await client.del(keys.outcomes);
    await client.hset(keys.outcomes, "a", "b");
    await expect(log.append([outcome("x")])).rejects.toThrow(StoreGarbageError);
    await client.del(keys.outcomes, keys.log);
    await client.hset(keys.log, "a", "b");
    await expect(log.read()).rejects.toThrow(StoreGarbageError);
    await client.del(keys.log);
    await client.set(keys.log, "not an id!");
    await expect(log.append([outcome("x")])).rejects.toThrow(/holds 10 characters that are not a run-outcome log id/);
    await client.del(keys.outcomes, keys.log);
    await client.quit();
    await log.close();
  });

  it("a replica restarted from its checkpoint reads on from its cursor; after a wipe from the start; each counted once", async () => {
    const prefix = uniquePrefix("run-resume");
    const [logA, logB] = await Promise.all([0, 1].map(() => RedisRunOutcomeLog.open({ url: server.url, prefix })));
    const feed = (router: RunRouter, who: string, from: number, n: number) => {
      for (let t = from; t < from + n; t++) {
        const task = { id: `${who}${t}`, text: `${who} job ${t}${" more".repeat(t % 3)}` };
        router.feedback(task, "strong", t % 5 !== 0);
        router.feedback(task, "weak", t % 3 === 0);
      }
    };
    const a = new RunRouter({ models: MODELS });
    const b = new RunRouter({ models: MODELS });
    feed(b, "b", 0, 300); // 600 outcomes: three pages
    await b.sync(logB);
    expect((await a.sync(logA)).pulled).toBe(600);
    feed(a, "a", 0, 5); // 10 not in the log yet
    const prior = JSON.parse(JSON.stringify(a.toPrior())) as RunPrior;
    expect(prior.sync!.cursor).toMatch(/:600$/);
    expect(prior.sync!.pending).toHaveLength(10);
    await logA.close(); // a's process ends
    feed(b, "b", 300, 10);
    await b.sync(logB);
    const logR = await RedisRunOutcomeLog.open({ url: server.url, prefix });
    const resumed = new RunRouter({ models: MODELS, prior });
    expect(await resumed.sync(logR)).toMatchObject({ pushed: 10, pulled: 20, duplicates: 10, skipped: 0 });
    const whole = new RunRouter({ models: MODELS });
    expect((await whole.sync(logR)).pulled).toBe(630);
    expect(a.feedbackCount + resumed.feedbackCount).toBe(whole.feedbackCount);
    expect(await b.sync(logB)).toMatchObject({ pulled: 10 });
    // the log wiped (Redis restarted without its data): another resumer from the checkpoint reads it from its start
    const client = await raw(server.url);
    const keys = runOutcomeKeys(prefix);
    await client.del(keys.outcomes, keys.log);
    feed(b, "b", 310, 3);
    await b.sync(logB);
    const again = new RunRouter({ models: MODELS, prior });
    expect(await again.sync(logR)).toMatchObject({ pushed: 10, pulled: 6, duplicates: 10 });
    expect(again.feedbackCount).toBe(6);
    await client.quit();
    await Promise.all([logB.close(), logR.close()]);
  });

  it("validates its options and its outcomes; leaves a client it was given open", async () => {
    await expect(RedisRunOutcomeLog.open({ url: server.url, prefx: "p" } as never)).rejects.toThrow(
      /did you mean "prefix"/,
    );
    await expect(RedisRunOutcomeLog.open({})).rejects.toThrow(/give exactly one of url and client/);
    await expect(RedisRunOutcomeLog.open({ url: "http://x" })).rejects.toThrow(ValidationError);
    await expect(RedisRunOutcomeLog.open({ url: server.url, prefix: "a b" })).rejects.toThrow(/prefix must be/);
    const client = await raw(server.url);
    const log = await RedisRunOutcomeLog.open({ client, prefix: uniquePrefix("run-client") });
    const bad = await log.append([outcome("a"), outcome("b", { weight: -1 })]).catch((e: unknown) => e);
    expect((bad as ValidationError).path).toBe("outcomes.1.weight");
    expect((await log.read()).outcomes).toEqual([]);
    await log.close();
    expect(await client.ping()).toBe("PONG");
    await client.quit();
  });
});

describe.skipIf(redisSkipReason() !== undefined)("RedisRunOutcomeLog with the server gone (own redis-server)", () => {
  it("connection refused is a RedisConnectionError; a sync while the server is down rejects, and pushes when it is back", async () => {
    const server = await TestRedis.start();
    try {
      const prefix = "run-down";
      const log = await RedisRunOutcomeLog.open({ url: server.url, prefix, timeouts: { commandMs: 500 } });
      const a = new RunRouter({ models: MODELS });
      a.feedback({ id: "t1", text: "first task" }, "weak", true);
      expect(await a.sync(log)).toMatchObject({ pushed: 1 });
      await server.kill();
      a.feedback({ id: "t2", text: "second task" }, "strong", false);
      const error = await a.sync(log).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toMatch(/could not append 1 run outcome\(s\).*unreachable.*stay pending/);
      expect(a.route("third task").chosen).toBeDefined();
      await expect(RedisRunOutcomeLog.open({ url: server.url, prefix, timeouts: { connectMs: 500 } })).rejects.toThrow(
        RedisConnectionError,
      );
      await server.restart(); // its AOF kept the first outcome
      let result;
      for (const end = Date.now() + 15_000; !result && Date.now() < end;) {
        result = await a.sync(log).catch(() => undefined);
        if (!result) await new Promise((r) => setTimeout(r, 100));
      }
      expect(result).toMatchObject({ pushed: 1, pulled: 0 });
      const b = new RunRouter({ models: MODELS });
      expect(await b.sync(log)).toMatchObject({ pulled: 2 });
      await log.close();
    } finally {
      await server.stop();
    }
  });
});
