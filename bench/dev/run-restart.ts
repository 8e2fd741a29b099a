/**
 * `npx tsx bench/dev/run-restart.ts [--every 10,30]`
 *
 * Does a run-level router that is restarted from what it saved lose what it learned? The replay's online stream
 * (../shared/BENCHMARK.md: 20 seeds, stream order and outcome draws from u(), models anonymous) on Terminal-Bench and
 * its 5 model halves (bench/dev/run-sets.ts), once with one router for the whole stream and once restarted every
 * `every` tasks from its own `toPrior()` (serialised to JSON and back, as `saveRunPrior` / `loadRunPrior` do), and,
 * for contrast, restarted every `every` tasks (the last interval) from nothing.
 * Prints each set's mean success and, per restart interval, its difference from the unbroken stream with a 95% paired
 * bootstrap interval over tasks (each task's outcomes summed over the seeds).
 */
import { parseArgs } from "node:util";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { anonymousNames, drawnOutcome, modelsConfig, rateOr0, streamOrder } from "../../src/runs/replay/protocol.js";
import type { RunTable } from "../../src/runs/replay/protocol.js";
import type { RunPrior } from "../../src/runs/run-prior.js";
import { bootstrapDiffCi, bootstrapPlan } from "../../src/stats/bootstrap.js";
import { modelHalf } from "./run-sets.js";

const { values } = parseArgs({ options: { every: { type: "string", default: "10,30" } }, strict: true });
const intervals = values.every.split(",").map(Number);
if (intervals.some((k) => !Number.isInteger(k) || k < 1)) {
  throw new Error(`--every: positive whole numbers separated by commas, got ${values.every}`);
}
const SEEDS = 20;

/**
 * Successes per task summed over the seeds, restarting the router every `every` tasks (0: never) from its prior, or
 * from nothing (`forget`: what a restart without a saved prior gives).
 */
function stream(table: RunTable, every: number, forget = false): Float64Array {
  const names = anonymousNames(table.models);
  const index = new Map(table.models.map((m, k) => [names.get(m)!, k]));
  const models = modelsConfig(table, names);
  const wins = new Float64Array(table.ids.length);
  for (let seed = 1; seed <= SEEDS; seed++) {
    let router = new RunRouter({ models, seed });
    streamOrder(table.name, table.ids, seed).forEach((i, pos) => {
      if (every > 0 && pos > 0 && pos % every === 0) {
        const prior = forget ? undefined : (JSON.parse(JSON.stringify(router.toPrior())) as RunPrior);
        router = new RunRouter({ models, seed, ...(prior && { prior }) });
      }
      const task = { id: table.ids[i]!, text: table.texts[i]! };
      const chosen = router.route(task).chosen;
      const m = index.get(chosen)!;
      const y = drawnOutcome(table.name, table.ids[i]!, table.models[m]!, seed, rateOr0(table, i, m));
      router.feedback(task, chosen, y);
      wins[i]! += Number(y);
    });
  }
  return wins;
}

const tb = await loadRunTable("terminal-bench-2-32models");
const sets: [string, RunTable][] = [["terminal-bench (all)", tb]];
for (let d = 1; d <= 5; d++) sets.push([`tb 16 models #${d}`, modelHalf(tb, d)]);
const mean = (w: Float64Array) => w.reduce((a, b) => a + b, 0) / w.length / SEEDS;
const last = intervals[intervals.length - 1]!;
console.log(
  `| set | one router | ${intervals.map((k) => `restarted every ${k} tasks (vs one router)`).join(" | ")} | ` +
    `restarted every ${last} tasks without the prior (vs one router) |`,
);
console.log(`|---|---|${intervals.map(() => "---|").join("")}---|`);
for (const [name, table] of sets) {
  const base = stream(table, 0);
  const plan = bootstrapPlan(table.ids.length, 1000, 1);
  const cells = [...intervals.map((k) => [k, false] as const), [last, true] as const].map(([k, forget]) => {
    const w = stream(table, k, forget);
    const [lo, hi] = bootstrapDiffCi(w, base, plan).map((x) => x / SEEDS);
    const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
    return `${mean(w).toFixed(3)} [${f(lo!)}, ${f(hi!)}]`;
  });
  console.log(`| ${name} | ${mean(base).toFixed(3)} | ${cells.join(" | ")} |`);
}
