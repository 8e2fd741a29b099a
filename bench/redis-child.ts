/**
 * Child process of the Redis benchmark (`node --import tsx bench/redis-child.ts <mode> <url> <prefix> ...`):
 *   append <url> <prefix> <events> <concurrency>  appends single-event batches, `concurrency` in flight; prints ms taken
 *   emit <url> <prefix> <events> <gapMs>           appends one event every gapMs with at = Date.now(); prints "done"
 */
import { RedisStore } from "../adapters/stores/redis.js";

const [mode, url, prefix, nArg, kArg] = process.argv.slice(2);
const n = Number(nArg);
const store = await RedisStore.open({ url: url!, prefix: prefix! });
const event = (i: number) => ({ id: `${process.pid}-${i}`, model: "gpt-4-1106-preview", alpha: [1.2, 1], beta: 0.1, y: i % 2, at: Date.now() });
if (mode === "append") {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Number(kArg) }, async () => {
      while (next < n) await store.append([event(next++)]);
    }),
  );
  process.stdout.write(`${performance.now() - t0}\n`);
} else {
  for (let i = 0; i < n; i++) {
    await store.append([event(i)]);
    await new Promise((r) => setTimeout(r, Number(kArg)));
  }
  process.stdout.write("done\n");
}
await store.close();
