/**
 * `npm run bench -- redis`: RedisStore at scale on one local redis-server started here (AOF, appendfsync always):
 * feedback events per second appended by 4 processes together, the time a budget reservation adds per feedback call,
 * and the delay until an event appended by another process reaches this one; each beside a bare PING round trip
 * measured in the same run (the ratios are what carries over to another machine).
 */
import { RedisStore } from "../../../adapters/stores/redis.js";
import { MemoryBudgetLedger } from "../../../src/learning/budget.js";
import { redisServerBinary, TestRedis } from "../../../test/stores/redis-server.js";
import { child, reflectDelay } from "../redis-replicas.js";
import { mdTable, percentile, type BenchSection } from "../section.js";

const PROCS = 4;
const PER_PROC = 10_000;
/** Appends in flight per process: 16 as in the stores section, and 64 (more for group commit to batch). */
const IN_FLIGHT = [16, 64] as const;

/** Round trips of a bare PING on a connection of its own (ms). */
async function pings(url: string, n: number): Promise<number[]> {
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const out: number[] = [];
  for (let i = 0; i < n + 50; i++) {
    const t0 = performance.now();
    await raw.ping();
    if (i >= 50) out.push(performance.now() - t0);
  }
  await raw.quit();
  return out;
}

/** Events per second appended by PROCS processes together (each `inFlight` single-event appends in flight). */
async function throughput(url: string, inFlight: number): Promise<number> {
  const prefix = `bench-redis-tput-${inFlight}-${Date.now()}`;
  const spans = await Promise.all(
    Array.from({ length: PROCS }, () =>
      child(["append", url, prefix, String(PER_PROC), String(inFlight), String(PROCS)]),
    ),
  );
  const times = spans.map((s) => s.trim().split(" ").map(Number) as [number, number]);
  const wall = (Math.max(...times.map((t) => t[1])) - Math.min(...times.map((t) => t[0]))) / 1000;
  const { Redis } = await import("ioredis");
  const raw = new Redis(url);
  const seq = Number(await raw.get(`{${prefix}}:seq`));
  const stored = await raw.xlen(`{${prefix}}:events`);
  await raw.quit();
  if (seq !== PROCS * PER_PROC || stored !== seq) throw new Error(`expected ${PROCS * PER_PROC} events, found ${seq}`);
  return seq / wall;
}

/** Time of one budget reservation: RedisStore's (a script) and the in-process ledger's, interleaved (ms). */
async function budgetTimes(url: string, n: number): Promise<{ redis: number[]; memory: number[] }> {
  const store = await RedisStore.open({ url, prefix: `bench-redis-budget-${Date.now()}` });
  const memory = new MemoryBudgetLedger();
  const limit = { weight: 1e9, windowMs: 3_600_000 };
  const out = { redis: [] as number[], memory: [] as number[] };
  for (let i = 0; i < n + 50; i++) {
    const source = `source-${i % 20}`;
    let t0 = performance.now();
    await store.budget.reserve(source, 1, limit, Date.now());
    if (i >= 50) out.redis.push(performance.now() - t0);
    t0 = performance.now();
    await memory.reserve(source, 1, limit, Date.now());
    if (i >= 50) out.memory.push(performance.now() - t0);
  }
  await store.close();
  return out;
}

const f = (v: number) => v.toFixed(3);

export async function run(): Promise<BenchSection> {
  const title = "RedisStore at scale";
  if (!redisServerBinary()) return { title, markdown: "Not measured: no redis-server on this machine." };
  const server = await TestRedis.start();
  // The same server but fsync once a second: how much of a write's time is the fsync of appendfsync always.
  const everysec = await TestRedis.start(["--appendfsync", "everysec"]);
  try {
    const ping = await pings(server.url, 2000);
    const rates = [];
    for (const k of IN_FLIGHT) rates.push({ k, rate: await throughput(server.url, k) });
    const budget = await budgetTimes(server.url, 2000);
    const relaxed = await budgetTimes(everysec.url, 2000);
    const delays = await reflectDelay(server.url, 500);
    const ping50 = percentile(ping, 50);
    const ping99 = percentile(ping, 99);
    const added = (b: typeof budget) => percentile(b.redis, 50) - percentile(b.memory, 50);
    const [d50, d99] = [percentile(delays, 50), percentile(delays, 99)];
    const table = mdTable(
      ["figure", "measured", "in PING round trips (p50)", "target"],
      [
        ["bare PING round trip, p50 / p99 ms", `${f(ping50)} / ${f(ping99)}`, "1", "baseline"],
        ...rates.map(({ k, rate }) => [
          `feedback events/s, ${PROCS} processes together (${PER_PROC} single-event appends each, ${k} in flight)`,
          `${Math.round(rate)} (${f(1000 / rate)} ms per event)`,
          `${(1000 / rate / ping50).toFixed(2)} per event`,
          ">= 5,000 events/s",
        ]),
        [
          "budget reservation added per feedback call, p50 ms (RedisStore script minus in-process ledger)",
          f(added(budget)),
          (added(budget) / ping50).toFixed(2),
          "<= 1 ms",
        ],
        [
          "the same on a server with appendfsync everysec (no fsync per write)",
          f(added(relaxed)),
          (added(relaxed) / ping50).toFixed(2),
          "(cause)",
        ],
        [
          `delay until another process's event reaches this one, p50 / p99 ms (${delays.length} events, one per 10 ms)`,
          `${f(d50)} / ${f(d99)}`,
          `${(d50 / ping50).toFixed(1)} / ${(d99 / ping50).toFixed(1)}`,
          "p99 <= 20 ms",
        ],
      ],
    );
    const markdown =
      `A redis-server started by the benchmark on loopback (AOF, appendfsync always); the children are ` +
      `\`bench/redis-child.ts\` processes started together (a barrier in Redis), the rate is all events over the span ` +
      `from the first start to the last end; concurrent appends of one process share script calls (group commit). ` +
      `Budget: ${budget.redis.length} reservations against the RedisStore ledger and the in-process one, interleaved. ` +
      `Delay: the event's \`at\` (set by the other process just before its append) to the follow callback here.\n\n${table}\n`;
    return { title, markdown };
  } finally {
    await server.stop();
    await everysec.stop();
  }
}
