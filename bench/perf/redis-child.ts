/**
 * Child process of the Redis benchmark (`node --import tsx bench/perf/redis-child.ts <mode> <url> <prefix> ...`):
 *   append <url> <prefix> <events> <concurrency> <procs>  once all `procs` children are connected, appends
 *     single-event batches with `concurrency` in flight; prints its start and end (epoch ms)
 *   emit <url> <prefix> <events> <gapMs>           appends one event every gapMs with at = Date.now(); prints "done"
 */
import { RedisStore } from "../../adapters/stores/redis.js";

const [mode, url, prefix, nArg, kArg] = process.argv.slice(2);
const n = Number(nArg);
const store = await RedisStore.open({ url: url!, prefix: prefix! });
const event = (i: number) => ({
  id: `${process.pid}-${i}`,
  model: "gpt-4-1106-preview",
  alpha: [1.2, 1],
  beta: 0.1,
  y: i % 2,
  at: Date.now(),
});
if (mode === "append") {
  // Start together: each child waits until every child has connected (a counter in Redis), then appends.
  const [, , , , , procs] = process.argv.slice(2);
  const { Redis } = await import("ioredis");
  const redis = new Redis(url!);
  await redis.incr(`${prefix}:barrier`);
  while (Number(await redis.get(`${prefix}:barrier`)) < Number(procs)) await new Promise((r) => setTimeout(r, 5));
  let next = 0;
  const start = Date.now();
  await Promise.all(
    Array.from({ length: Number(kArg) }, async () => {
      while (next < n) await store.append([event(next++)]);
    }),
  );
  process.stdout.write(`${start} ${Date.now()}\n`);
  await redis.quit();
} else {
  for (let i = 0; i < n; i++) {
    await store.append([event(i)]);
    await new Promise((r) => setTimeout(r, Number(kArg)));
  }
  process.stdout.write("done\n");
}
await store.close();
