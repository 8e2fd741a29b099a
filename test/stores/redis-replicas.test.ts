/**
 * Many processes on one real Redis: learner convergence, feedback for a run routed by another process, a budget held
 * across processes, and no acknowledged event lost when Redis is SIGKILLed and restarted.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RedisStore } from "../../adapters/stores/redis.js";
import { IrtRouter } from "../../src/langchain/index.js";
import { engineOf } from "../../src/langchain/model/router.js";
import type { FeedbackEvent } from "../../src/learning/events.js";
import { OnlineLearner, type LearnerState } from "../../src/learning/learner.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { workerIds } from "./fixtures/redis-events.js";
import { redisSkipReason, sharedRedis, TestRedis, uniquePrefix } from "./redis-server.js";

const CHILD = join(import.meta.dirname, "fixtures", "redis-child.ts");
const skip = redisSkipReason() !== undefined;

function child(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child ${args[0]} exited ${code}: ${err}`))));
  });
}

/** Largest absolute difference between two learner states' numbers (same shape required). */
function maxDiff(a: unknown, b: unknown, path = "state"): number {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b);
  if (Array.isArray(a) && Array.isArray(b)) {
    expect(a.length, path).toBe(b.length);
    return a.reduce((m: number, x, i) => Math.max(m, maxDiff(x, b[i], `${path}.${i}`)), 0);
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    expect(Object.keys(a).sort(), path).toEqual(Object.keys(b).sort());
    return Object.keys(a).reduce((m, k) => Math.max(m, maxDiff((a as never)[k], (b as never)[k], `${path}.${k}`)), 0);
  }
  expect(a, path).toEqual(b);
  return 0;
}

describe.skipIf(skip)("RedisStore with many processes (real redis-server)", () => {
  let server: Awaited<ReturnType<typeof sharedRedis>>;
  beforeAll(async () => {
    server = await sharedRedis();
  });
  afterAll(async () => server?.stop());

  it("4 processes x 2,000 events (duplicates, retries) end with one learner state: the stream's, applied in order", async () => {
    const prefix = uniquePrefix("converge");
    const total = new Set([0, 1, 2, 3].flatMap(workerIds)).size;
    // This process follows the stream from the start and applies it in order: the reference.
    const observer = await RedisStore.open({ url: server.url, prefix });
    const seen: FeedbackEvent[] = [];
    const seqs: number[] = [];
    const sub = observer.follow(0, {
      events: (batch) => {
        seqs.push(...batch.map((e) => e.seq));
        seen.push(...batch.map((e) => e.event));
      },
    });
    const outputs = await Promise.all(
      [0, 1, 2, 3].map((w) => child(["events", server.url, prefix, String(w), String(total)])),
    );
    for (let i = 0; i < 100 && seen.length < total; i++) await new Promise((r) => setTimeout(r, 100));
    await sub.stop();
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(seen.length).toBe(total);
    expect(new Set(seen.map((e) => e.id)).size).toBe(total);
    const scorer = new ToyScorer();
    const reference = OnlineLearner.forScorer(scorer);
    for (const e of seen) reference.observe(e);
    const expected = reference.exportState();
    const states = outputs.map((o) => JSON.parse(o) as { applied: number; state: LearnerState });
    for (const { applied, state } of states) {
      expect(applied).toBe(total);
      expect(maxDiff(state.models, expected.models)).toBeLessThanOrEqual(1e-9);
      expect(new Set(state.seenIds)).toEqual(new Set(expected.seenIds));
    }
    // A new process restores the same state from the stream, and then from a snapshot plus the stream after it.
    const restore = async () => {
      const router = new IrtRouter({
        models: { "gpt-4": new FakeListChatModel({ responses: ["ok"] }) },
        scorer,
        store: observer,
        logger: quietLogger(),
      });
      await router.invoke("hello");
      return engineOf(router).learner!.exportState!() as LearnerState;
    };
    expect(maxDiff((await restore()).models, expected.models)).toBeLessThanOrEqual(1e-9);
    const partial = OnlineLearner.forScorer(scorer);
    for (const e of seen.slice(0, 5000)) partial.observe(e);
    await observer.snapshot(5000, partial.exportState());
    expect((await observer.load()).events).toHaveLength(total - 5000);
    expect(maxDiff((await restore()).models, expected.models)).toBeLessThanOrEqual(1e-9);
    await observer.close();
  }, 240_000);

  it("feedback for a run routed by another process", async () => {
    const prefix = uniquePrefix("cross");
    const out = await child(["route", server.url, prefix, "run-A", "3"]);
    const decisions = out
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    expect(decisions).toHaveLength(3);
    const store = await RedisStore.open({ url: server.url, prefix });
    const router = new IrtRouter({
      models: {
        "gpt-4": new FakeListChatModel({ responses: ["ok"] }),
        mistral: new FakeListChatModel({ responses: ["ok"] }),
      },
      scorer: new ToyScorer(),
      store,
      logger: quietLogger(),
    });
    const events = await router.feedback("run-A", true);
    expect(events.map((e) => e.decisionId).sort()).toEqual(decisions.map((d) => d[1]).sort());
    expect(events.every((e) => e.runId === "run-A" && e.alpha.length === 2)).toBe(true);
    expect((await store.load()).events.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
    // A second outcome for the same run, on any process, is refused here (already given) and a no-op in the store.
    await expect(router.feedback("run-A", false)).rejects.toThrow(/already has an outcome/);
    await store.close();
  }, 120_000);

  it("a per-run budget is held across 4 processes routing the same run at once", async () => {
    const prefix = uniquePrefix("budget");
    const cap = 0.3;
    const outs = await Promise.all(
      [0, 1, 2, 3].map(() => child(["budget", server.url, prefix, "run-B", "8", String(cap)])),
    );
    const calls = outs.flatMap((o) => o.trim().split("\n")).map((l) => l.split(" "));
    expect(calls).toHaveLength(32);
    const spent = calls.reduce((s, [, , cost]) => s + Number(cost), 0);
    const step = Math.max(...calls.map(([, , cost]) => Number(cost)));
    expect(
      calls.some(([, id]) => id === "gpt-4"),
      outs.join("\n"),
    ).toBe(true);
    // What one process alone would spend is at most the cap plus the one step in flight; 4 processes, the same.
    expect(spent).toBeLessThanOrEqual(cap + step + 1e-9);
    const store = await RedisStore.open({ url: server.url, prefix });
    expect(await store.spend.spent("run-B")).toBeCloseTo(spent, 9);
    await store.close();
  }, 120_000);
});

describe.skipIf(skip)("RedisStore when Redis is SIGKILLed and restarted (AOF, appendfsync always)", () => {
  it("every acknowledged event is there afterwards; what Redis missed was buffered and sent", async () => {
    const server = await TestRedis.start();
    const warnings: string[] = [];
    const store = await RedisStore.open({
      url: server.url,
      prefix: "kill",
      buffer: { retryMs: 50 },
      onWarning: (m) => warnings.push(m),
    });
    const acked: string[] = [];
    let stop = false;
    let n = 0;
    const load = (async () => {
      while (!stop) {
        const batch = Array.from({ length: 10 }, () => ({
          id: `k${n++}`,
          model: "m",
          alpha: [1],
          beta: 0,
          y: n % 2,
          at: n,
        }));
        await store.append(batch);
        acked.push(...batch.map((e) => e.id));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    await server.kill();
    await new Promise((r) => setTimeout(r, 300));
    const ackedWhileDown = acked.length;
    await server.restart();
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await load;
    for (let i = 0; i < 100 && store.bufferedCount > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(store.bufferedCount).toBe(0);
    expect(warnings.some((w) => /unreachable/.test(w))).toBe(true);
    const check = await RedisStore.open({ url: server.url, prefix: "kill" });
    const stored = (await check.load()).events.map((e) => e.id);
    expect(new Set(stored).size).toBe(stored.length);
    const missing = acked.filter((id) => !stored.includes(id));
    expect(missing).toEqual([]);
    expect(ackedWhileDown).toBeGreaterThan(0);
    await check.close();
    await store.close();
    await server.stop();
  }, 120_000);
});
