/**
 * `npx tsx bench/dev/run-restart.ts [--every 10,30]`
 *
 * Does a run-level router that is restarted from what it saved lose what it learned? The replay's online stream
 * (../shared/BENCHMARK.md: 20 seeds, stream order and outcome draws from u(), models anonymous) on Terminal-Bench and
 * its 5 model halves (bench/dev/run-sets.ts), once with one router for the whole stream and once restarted every
 * `every` tasks from its own `toPrior()` (serialised to JSON and back, as `saveRunPrior` / `loadRunPrior` do), and,
 * for contrast, restarted every `every` tasks (the last interval) from nothing.
 * Also restarted every first interval from the prior's abilities alone (its past tasks left out), which locates what a
 * restart changes. Prints each set's mean success and, per way, its difference from the unbroken stream with a 95% paired
 * bootstrap interval over tasks (each task's outcomes summed over the seeds), its cost per run as a multiple of the
 * unbroken stream's, and the models tried per stream (mean over seeds).
 */
import { z } from "zod";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { anonymousNames, drawnOutcome, modelsConfig, rateOr0, streamOrder } from "../../src/runs/replay/protocol.js";
import type { RunTable } from "../../src/runs/replay/protocol.js";
import type { RunPrior } from "../../src/runs/run-prior.js";
import { bootstrapDiffCi, bootstrapPlan } from "../../src/stats/bootstrap.js";
import { modelHalf } from "./run-sets.js";
import { listFlag, positiveIntFlag, scriptFlags } from "../flags.js";

const { every: intervals } = scriptFlags(
  "bench/dev/run-restart.ts",
  { every: { type: "string" } },
  z.object({ every: listFlag(positiveIntFlag("tasks between restarts")).default([10, 30]) }).strict(),
);
const SEEDS = 20;

/** How a restarted router starts: from its whole prior, from the prior's abilities alone (no past tasks), or nothing. */
type Restart = "prior" | "abilities" | "nothing";

/** One way of running the stream: successes per task summed over the seeds, USD spent, models tried per stream. */
interface StreamResult {
  readonly wins: Float64Array;
  readonly cost: number;
  readonly tried: number;
}

/** The online stream of every seed, the router restarted every `every` tasks (0: never) as `restart` says. */
function stream(table: RunTable, every: number, restart: Restart = "prior"): StreamResult {
  const names = anonymousNames(table.models);
  const index = new Map(table.models.map((m, k) => [names.get(m)!, k]));
  const models = modelsConfig(table, names);
  const wins = new Float64Array(table.ids.length);
  let cost = 0;
  let tried = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    let router = new RunRouter({ models, seed });
    const used = new Set<string>();
    streamOrder(table.name, table.ids, seed).forEach((i, pos) => {
      if (every > 0 && pos > 0 && pos % every === 0) {
        const saved = JSON.parse(JSON.stringify(router.toPrior())) as RunPrior;
        const prior = restart === "nothing" ? undefined : restart === "abilities" ? { ...saved, tasks: [] } : saved;
        router = new RunRouter({ models, seed, ...(prior && { prior }) });
      }
      const task = { id: table.ids[i]!, text: table.texts[i]! };
      const chosen = router.route(task).chosen;
      used.add(chosen);
      const m = index.get(chosen)!;
      const y = drawnOutcome(table.name, table.ids[i]!, table.models[m]!, seed, rateOr0(table, i, m));
      router.feedback(task, chosen, y);
      wins[i]! += Number(y);
      cost += table.runCost[m]!;
    });
    tried += used.size / SEEDS;
  }
  return { wins, cost, tried };
}

const tb = await loadRunTable("terminal-bench-2-32models");
const sets: [string, RunTable][] = [["terminal-bench (all)", tb]];
for (let d = 1; d <= 5; d++) sets.push([`tb 16 models #${d}`, modelHalf(tb, d)]);
const mean = (w: Float64Array) => w.reduce((a, b) => a + b, 0) / w.length / SEEDS;
const first = intervals[0]!;
const last = intervals[intervals.length - 1]!;
const variants: [string, number, Restart][] = [
  ...intervals.map((k): [string, number, Restart] => [`every ${k} tasks`, k, "prior"]),
  [`every ${first} tasks, abilities only`, first, "abilities"],
  [`every ${last} tasks without the prior`, last, "nothing"],
];
console.log(
  "Cells: success [difference from one router, 95% paired interval] cost per run vs one router, models tried.",
);
console.log(`| set | one router | ${variants.map(([name]) => `restarted ${name}`).join(" | ")} |`);
console.log(`|---|---|${variants.map(() => "---|").join("")}`);
for (const [name, table] of sets) {
  const base = stream(table, 0);
  const plan = bootstrapPlan(table.ids.length, 1000, 1);
  const cells = variants.map(([, k, restart]) => {
    const r = stream(table, k, restart);
    const [lo, hi] = bootstrapDiffCi(r.wins, base.wins, plan).map((x) => x / SEEDS);
    const f = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;
    return `${mean(r.wins).toFixed(3)} [${f(lo!)}, ${f(hi!)}] x${(r.cost / base.cost).toFixed(2)}, ${r.tried.toFixed(1)}`;
  });
  console.log(`| ${name} | ${mean(base.wins).toFixed(3)}, ${base.tried.toFixed(1)} | ${cells.join(" | ")} |`);
}
