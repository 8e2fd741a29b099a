/**
 * `npx tsx bench/dev/run-sync-memory.ts` (about 40 s)
 *
 * What a replica keeps in memory for a run-outcome log it synced (`RunRouter.sync`): a writer feeds N run outcomes
 * (distinct tasks, three models in turn, syncing every 5,000) to a `MemoryRunOutcomeLog`; then, in the same process, a
 * replica learns them all by one `sync` and, as the baseline, another router is fed the same N outcomes directly. Both
 * keep the default bound on outcomes (`maxOutcomes` 10,000), so the baseline's heap does not grow with N: what the
 * replica holds beyond it is what sharing keeps per outcome of the log (its ids and its record of what it queued).
 * Reported: the heap each holds after a full GC (MB) and the replica's extra bytes per outcome of the log.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MemoryRunOutcomeLog } from "../../adapters/stores/run-outcome-memory.js";
import { RunRouter } from "../../src/runs/run-router.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const models = { big: { runCost: 2 }, mid: { runCost: 0.6 }, small: { runCost: 0.2 } };
const names = Object.keys(models);

function feed(router: RunRouter, k: number): void {
  router.feedback({ id: `t${k}`, text: `task ${k} about files and ${k % 97} folders` }, names[k % 3]!, k % 4 > 0);
}

/** Heap (MB) that `make`'s result holds after a full GC. */
async function heldBy(make: () => Promise<RunRouter>): Promise<number> {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const router = await make();
  gc();
  gc();
  const held = (process.memoryUsage().heapUsed - before) / 1e6;
  router.route("keep the router alive until the heap is read");
  return held;
}

/** Heap (MB) of the replica and of the baseline router for a log of `n` outcomes. */
async function measure(n: number): Promise<{ replica: number; direct: number }> {
  const log = new MemoryRunOutcomeLog();
  const writer = new RunRouter({ models, tracing: false });
  await writer.sync(log);
  for (let k = 0; k < n; k++) {
    feed(writer, k);
    if (k % 5000 === 4999) await writer.sync(log);
  }
  await writer.sync(log);
  const replica = await heldBy(async () => {
    const r = new RunRouter({ models, tracing: false });
    const { pulled } = await r.sync(log);
    if (pulled !== n) throw new Error(`pulled ${pulled} of ${n}`);
    return r;
  });
  const direct = await heldBy(async () => {
    const r = new RunRouter({ models, tracing: false });
    for (let k = 0; k < n; k++) feed(r, k);
    return r;
  });
  return { replica, direct };
}

await measure(5000); // warm-up: the first rounds pay for the compiler, and its garbage would count
console.log("| outcomes in the log | replica after sync (MB) | router fed directly (MB) | extra bytes per outcome |");
console.log("|---|---|---|---|");
for (const n of [50_000, 100_000, 200_000]) {
  const { replica, direct } = await measure(n);
  const extra = ((replica - direct) * 1e6) / n;
  console.log(`| ${n} | ${replica.toFixed(1)} | ${direct.toFixed(1)} | ${extra.toFixed(0)} |`);
}
