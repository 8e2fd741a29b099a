/**
 * `npx tsx bench/dev/run-scale.ts` (about 30 s)
 *
 * What bounding a run-level router's kept outcomes (option `maxOutcomes`: the oldest folded into its prior) does to its
 * time per decision and to its success.
 * - Time: one router fed N run outcomes (Terminal-Bench's texts under new ids, models in turn, every third a pass), then
 *   the mean time of 50 route-and-feedback steps, for N = 1,000, 5,000, 20,000 and 50,000, with the default bound and none
 *   (1e7); reported as the ratio of the two in this process, and heap use.
 * - Success: the replay's online stream (../shared/BENCHMARK.md hashes, models anonymous) over Terminal-Bench's 89 tasks
 *   passed 5 times (each pass its own ids and outcome draws, u("D/ID#pass/M/s")), 20 seeds, with bounds 100 and 200 (folding from the 101st / 201st task on)
 *   against none: success over the stream, paired 95% bootstrap interval over tasks, cost per run against none.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { DEFAULT_MAX_OUTCOMES, MAX_OUTCOMES } from "../../src/runs/options.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { anonymousNames, drawnOutcome, modelsConfig, rateOr0, streamOrder } from "../../src/runs/replay/protocol.js";
import { bootstrapDiffCi, bootstrapPlan } from "../../src/stats/bootstrap.js";

const tb = await loadRunTable("terminal-bench-2-32models");
const names = anonymousNames(tb.models);
const models = modelsConfig(tb, names);
const ids = [...names.values()];
const UNBOUNDED = MAX_OUTCOMES;
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Mean ms of a route-and-feedback step after `n` outcomes, and the heap then (MB). */
function timeAt(n: number, maxOutcomes: number): { ms: number; heap: number } {
  const router = new RunRouter({ models, maxOutcomes, tracing: false });
  for (let k = 0; k < n; k++) {
    const i = k % tb.ids.length;
    router.feedback({ id: `${tb.ids[i]}#${k}`, text: tb.texts[i]! }, ids[k % ids.length]!, k % 3 === 0);
  }
  router.route("warm up"); // the first fit after the feed is part of neither
  const steps = 50;
  const t0 = performance.now();
  for (let k = 0; k < steps; k++) {
    const task = { id: `new#${k}`, text: tb.texts[k % tb.ids.length]! };
    router.feedback(task, router.route(task).chosen, k % 2 === 0);
  }
  const ms = (performance.now() - t0) / steps;
  gc();
  const heap = process.memoryUsage().heapUsed / 1e6;
  router.route("keep the router alive until the heap is read");
  return { ms, heap };
}

console.log(`Time per route-and-feedback, maxOutcomes ${DEFAULT_MAX_OUTCOMES} (default) against none:`);
console.log("| outcomes kept before | default (ms) | none (ms) | ratio | heap, default / none (MB) |");
console.log("|---|---|---|---|---|");
timeAt(1000, UNBOUNDED); // warm-up: the first router pays for the compiler
for (const n of [1000, 5000, 20000, 50000]) {
  const none = timeAt(n, UNBOUNDED);
  const bounded = timeAt(n, DEFAULT_MAX_OUTCOMES);
  console.log(
    `| ${n} | ${bounded.ms.toFixed(1)} | ${none.ms.toFixed(1)} | ${(bounded.ms / none.ms).toFixed(2)} | ` +
      `${bounded.heap.toFixed(0)} / ${none.heap.toFixed(0)} |`,
  );
}

const PASSES = 5;
const SEEDS = 20;
/** Successes per (pass, task) summed over the seeds, and the USD spent, with a bound. */
function stream(maxOutcomes: number): { wins: Float64Array; cost: number } {
  const n = tb.ids.length;
  const wins = new Float64Array(n * PASSES);
  let cost = 0;
  const index = new Map(tb.models.map((m, k) => [names.get(m)!, k]));
  for (let seed = 1; seed <= SEEDS; seed++) {
    const router = new RunRouter({ models, seed, maxOutcomes, tracing: false });
    for (let pass = 0; pass < PASSES; pass++) {
      for (const i of streamOrder(`${tb.name}#${pass}`, tb.ids, seed)) {
        const id = `${tb.ids[i]}#${pass}`;
        const task = { id, text: tb.texts[i]! };
        const chosen = router.route(task).chosen;
        const m = index.get(chosen)!;
        const y = drawnOutcome(tb.name, id, tb.models[m]!, seed, rateOr0(tb, i, m));
        router.feedback(task, chosen, y);
        wins[pass * n + i]! += Number(y);
        cost += tb.runCost[m]!;
      }
    }
  }
  return { wins, cost };
}
const base = stream(UNBOUNDED);
const plan = bootstrapPlan(base.wins.length, 1000, 1);
const mean = (w: Float64Array) => w.reduce((a, b) => a + b, 0) / w.length / SEEDS;
console.log(`\nOnline stream, Terminal-Bench passed ${PASSES} times (${base.wins.length} tasks), ${SEEDS} seeds:`);
console.log("| maxOutcomes | success | vs none (95% paired interval) | cost per run vs none |");
console.log("|---|---|---|---|");
console.log(`| none | ${mean(base.wins).toFixed(3)} | | |`);
for (const bound of [100, 200]) {
  const r = stream(bound);
  const [lo, hi] = bootstrapDiffCi(r.wins, base.wins, plan).map((x) => x / SEEDS);
  const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
  const d = mean(r.wins) - mean(base.wins);
  console.log(
    `| ${bound} | ${mean(r.wins).toFixed(3)} | ${f(d)} [${f(lo!)}, ${f(hi!)}] | x${(r.cost / base.cost).toFixed(2)} |`,
  );
}
