/**
 * The Redis part of `npm run bench -- stores`: routing overhead of a router wired to a RedisStore against one wired
 * to a MemoryStore (interleaved calls in one process), feedback events per second appended by 1 and 4 processes, and
 * the delay until another process applies an event. Starts its own redis-server (AOF, appendfsync always).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MemoryStore } from "../../adapters/stores/memory.js";
import { RedisStore } from "../../adapters/stores/redis.js";
import { IrtRouter } from "../../src/langchain/index.js";
import type { PolicyConfig } from "../../src/policy/types.js";
import { ToyScorer, quietLogger } from "../../test/langchain/helpers.js";
import { redisServerBinary, TestRedis } from "../../test/stores/redis-server.js";
import { mdTable, percentile } from "./section.js";

const CHILD = join(import.meta.dirname, "redis-child.ts");

/** Runs bench/perf/redis-child.ts with `args`; resolves with its stdout. */
export function child(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`bench child exited ${code}`))));
  });
}

function router(store: MemoryStore | RedisStore, policy: PolicyConfig): IrtRouter {
  const fake = () => new FakeListChatModel({ responses: ["ok"] });
  return new IrtRouter({
    models: {
      "gpt-4": { model: fake(), price: { inputPer1M: 10, outputPer1M: 30 } },
      mistral: { model: fake(), price: { inputPer1M: 0.2, outputPer1M: 0.2 } },
    },
    scorer: new ToyScorer(),
    store,
    policy,
    logger: quietLogger(),
  });
}

/** Per-call invoke latency (ms) of each router, calls interleaved so machine load hits both alike. */
async function overhead(
  policy: PolicyConfig,
  url: string,
  calls: number,
): Promise<{ memory: number[]; redis: number[]; ping: number[] }> {
  const redisStore = await RedisStore.open({ url, prefix: `bench-route-${policy.kind}-${Date.now()}` });
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const routers = { memory: router(new MemoryStore(), policy), redis: router(redisStore, policy) };
  const out = { memory: [] as number[], redis: [] as number[], ping: [] as number[] };
  for (let i = 0; i < calls + 20; i++) {
    for (const k of ["memory", "redis"] as const) {
      const t0 = performance.now();
      await routers[k].invoke("What is 2 + 2?", { metadata: { irtRouterRunId: `run-${i % 10}` } });
      if (i >= 20) out[k].push(performance.now() - t0);
    }
    const t0 = performance.now();
    await raw.ping();
    if (i >= 20) out.ping.push(performance.now() - t0);
  }
  await raw.quit();
  await redisStore.close();
  return out;
}

/** Events per second appended by `procs` processes, each `perProc` single-event appends with 16 in flight. */
async function throughput(url: string, procs: number, perProc: number): Promise<number> {
  const prefix = `bench-tput-${procs}-${Date.now()}`;
  const spans = await Promise.all(
    Array.from({ length: procs }, () => child(["append", url, prefix, String(perProc), "16", String(procs)])),
  );
  const times = spans.map((s) => s.trim().split(" ").map(Number) as [number, number]);
  // From the first child's start to the last one's end (they start together, after a barrier).
  const wall = (Math.max(...times.map((t) => t[1])) - Math.min(...times.map((t) => t[0]))) / 1000;
  const store = await RedisStore.open({ url, prefix });
  const { seq } = await store.load();
  await store.close();
  if (seq !== procs * perProc) throw new Error(`expected ${procs * perProc} events, found ${seq}`);
  return seq / wall;
}

/** Delay (ms) from another process's append to this process receiving (and a router applying) the event. */
/** Milliseconds from an event's append in a child process to its arrival at a follower here, per event. */
export async function reflectDelay(url: string, events: number): Promise<number[]> {
  const prefix = `bench-delay-${Date.now()}`;
  const store = await RedisStore.open({ url, prefix });
  const delays: number[] = [];
  const sub = store.follow(0, { events: (batch) => batch.forEach((e) => delays.push(Date.now() - e.event.at)) });
  await child(["emit", url, prefix, String(events), "10"]);
  for (let i = 0; i < 50 && delays.length < events; i++) await new Promise((r) => setTimeout(r, 100));
  await sub.stop();
  await store.close();
  return delays;
}

const f = (v: number) => v.toFixed(3);

export async function redisReplicasSection(): Promise<string> {
  if (!redisServerBinary()) return "Redis: not measured (no redis-server on this machine).";
  const server = await TestRedis.start();
  try {
    const quality = await overhead({ kind: "quality" }, server.url, 400);
    const budget = await overhead({ kind: "budget", maxUsdPerRun: 1000 }, server.url, 400);
    const one = await throughput(server.url, 1, 5000);
    const four = await throughput(server.url, 4, 5000);
    const delays = await reflectDelay(server.url, 300);
    const row = (name: string, r: { memory: number[]; redis: number[] }) => {
      const [m50, r50, m99, r99] = [
        percentile(r.memory, 50),
        percentile(r.redis, 50),
        percentile(r.memory, 99),
        percentile(r.redis, 99),
      ];
      return [
        name,
        `${f(m50)} / ${f(m99)}`,
        `${f(r50)} / ${f(r99)}`,
        `+${f(r50 - m50)} (x${(r50 / m50).toFixed(2)})`,
        `+${f(r99 - m99)} (x${(r99 / m99).toFixed(2)})`,
      ];
    };
    const routing = mdTable(
      [
        "router.invoke, policy",
        "MemoryStore p50 / p99 ms",
        "RedisStore p50 / p99 ms",
        "added at p50 ms (ratio)",
        "added at p99 ms (ratio)",
      ],
      [
        row("quality (decision published after the call, not awaited)", quality),
        row("budget (one atomic reservation: one round trip)", budget),
      ],
    );
    const rest = mdTable(
      ["figure", "measured"],
      [
        [
          `one Redis round trip (PING) in the same loops, p50 / p99 ms`,
          `${f(percentile([...quality.ping, ...budget.ping], 50))} / ${f(percentile([...quality.ping, ...budget.ping], 99))}`,
        ],
        ["feedback events/s, 1 process (single-event appends, 16 in flight)", Math.round(one)],
        ["feedback events/s, 4 processes together (the same, each)", Math.round(four)],
        [
          `delay until another process applies an event, p50 / p99 ms (${delays.length} events)`,
          `${f(percentile(delays, 50))} / ${f(percentile(delays, 99))}`,
        ],
      ],
    );
    return (
      `### Many processes on one Redis (RedisStore)\n\n` +
      `A redis-server started by the benchmark on loopback, AOF with appendfsync always. Routing: 400 calls per router, ` +
      `MemoryStore and RedisStore routers interleaved in one process (ToyScorer, fake chat models: the figures are the router's own cost). ` +
      `Events/s: child processes start appending together (a barrier in Redis), each with 16 single-event appends in flight; ` +
      `the rate is all events over the span from the first start to the last end. Delay: from the append (its \`at\`) ` +
      `to the follow callback in this process, where a router applies the event.\n\n${routing}\n\n${rest}\n`
    );
  } finally {
    await server.stop();
  }
}
