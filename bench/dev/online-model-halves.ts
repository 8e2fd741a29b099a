/**
 * `npx tsx bench/dev/online-model-halves.ts '[<setting>, ...]'`, each setting `{ "exploration"?: number, "priors"?:
 * RunPriors }` (default `[{}]`: the shipped defaults). About 15 s a setting on this 2-core machine.
 *
 * The replay's online stream (src/runs/replay/online.ts, models anonymous, 20 seeds) on Terminal-Bench's training items
 * only (the 69 whose `split` is `train`) with all 32 models and with 10 random halves of them (16 models each, draws 6
 * to 15 by u("D/models/d/M"); draws 1 to 5 are bench/dev/run-robustness.ts's check sets, left unseen here). A setting
 * is judged by the router's success as a share of the best fixed model's in hindsight on the same stream, on every set:
 * a default chosen on one model set should hold on the others. Each setting after the first also gets the mean
 * difference of that share from the first setting's over the halves (paired by half) with its standard error.
 *
 * `npx tsx bench/dev/online-model-halves.ts --picks <d>`: on run-robustness.ts's model half #d (all 89 items, the
 * defaults), for each of the 20 streams the model the router ran most, how often, and that model's mean rate.
 */
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { onlineStream } from "../../src/runs/replay/online.js";
import { RunRouter } from "../../src/runs/run-router.js";
import {
  anonymousNames,
  drawnOutcome,
  modelsConfig,
  rateOr0,
  streamOrder,
  taskAt,
} from "../../src/runs/replay/protocol.js";
import { z } from "zod";
import type { RunTable } from "../../src/runs/replay/protocol.js";
import { all, draw, modelHalf, subset, trainItems } from "./run-sets.js";
import { jsonArgument, positiveIntFlag, scriptFlags } from "../flags.js";
import { runRouterOptionsSchema } from "../../src/runs/options.js";

const folder = "../shared/data/terminal-bench-2-32models";
const f = (x: number) => x.toFixed(3);
const program = "bench/dev/online-model-halves.ts";
if (process.argv[2]?.startsWith("--picks")) {
  const flags = { picks: { type: "string" } } as const;
  const { picks: half } = scriptFlags(program, flags, z.object({ picks: positiveIntFlag("a model half", { max: 5 }) }));
  picks(modelHalf(await loadRunTable(folder), half));
  process.exit(0);
}
const settings = jsonArgument(
  program,
  z.array(runRouterOptionsSchema.pick({ exploration: true, priors: true })).min(1),
  process.argv.slice(2),
  "[{}]",
  'a JSON list of { "exploration"?, "priors"? }, e.g. \'[{}, {"exploration": 0.1}]\'',
);
const tb = await loadRunTable(folder);
const train = await trainItems(tb, folder);
const halves: RunTable[] = [];
for (let d = 6; d <= 15; d++) {
  const models = draw(`${tb.name}/models/${d}`, tb.models, tb.models.length / 2);
  halves.push(subset(train, all(train.ids.length), models));
}

/** The router's online success and its share of the best fixed model's in hindsight. */
function share(table: RunTable, s: (typeof settings)[number]): { success: number; share: number } {
  const r = onlineStream(
    table,
    { seeds: 20, exploration: s.exploration ?? 0, hints: false, priors: s.priors },
    () => {},
  );
  return {
    success: r.anonymous.router.success,
    share: r.anonymous.router.success / r.anonymous.bestFixedHindsight.success,
  };
}

let first: number[] | undefined;
console.log(
  `${train.ids.length} training items; online, models anonymous, 20 seeds; share = success / best in hindsight`,
);
for (const s of settings) {
  const whole = share(train, s);
  const shares = halves.map((h) => share(h, s).share);
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  let vs = "";
  if (first) {
    const d = shares.map((x, k) => x - first![k]!);
    const m = d.reduce((a, b) => a + b, 0) / d.length;
    const se = Math.sqrt(d.reduce((a, b) => a + (b - m) ** 2, 0) / (d.length - 1) / d.length);
    vs = ` | vs first: ${m >= 0 ? "+" : ""}${f(m)} (se ${f(se)})`;
  } else first = shares;
  console.log(
    `${JSON.stringify(s)}: all 32 ${f(whole.success)} (share ${f(whole.share)}); halves mean share ${f(mean)}, ` +
      `min ${f(Math.min(...shares))}${vs}\n  halves: ${shares.map(f).join(" ")}`,
  );
}

/** Per stream: the model the router (defaults, models anonymous) ran most, how often, and its mean rate. */
function picks(table: RunTable): void {
  const names = anonymousNames(table.models);
  const index = new Map(table.models.map((m, k) => [names.get(m)!, k]));
  const rate = (m: number) => table.rate.reduce((s, r) => s + r[m]!, 0) / table.ids.length;
  for (let seed = 1; seed <= 20; seed++) {
    const router = new RunRouter({ models: modelsConfig(table, names), seed });
    const runs = new Float64Array(table.models.length);
    let wins = 0;
    for (const i of streamOrder(table.name, table.ids, seed)) {
      const task = taskAt(table, i, false);
      const m = index.get(router.route(task).chosen)!;
      const y = drawnOutcome(table.name, table.ids[i]!, table.models[m]!, seed, rateOr0(table, i, m));
      router.feedback(task, names.get(table.models[m]!)!, y);
      runs[m]! += 1;
      wins += Number(y);
    }
    const top = runs.indexOf(Math.max(...runs));
    const name = table.models[top]!;
    console.log(
      `stream ${seed}: success ${f(wins / table.ids.length)}; ${name} ${runs[top]} of ${table.ids.length} runs (rate ${f(rate(top))})`,
    );
  }
}
