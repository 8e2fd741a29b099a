/**
 * `npx tsx bench/dev/run-defaults.ts '<json>'` with json keys: trainOnly (bool), hints (bool), priors (RunPriors),
 * seeds, onlineSeeds, costWeights, dataset (default ../shared/data/terminal-bench-2-32models).
 *
 * The run-level replay (src/runs/replay) on a folder of runs, restricted with `trainOnly` to the items whose upstream
 * `split` column is `train` (Terminal-Bench: 69 of 89), where the run-level defaults are chosen: one line per part
 * (cross-fit single choice per cost weight, escalation per setting, online router), success@cost ratio.
 */
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { replayRuns } from "../../src/runs/replay/index.js";
import type { ReplayPoint } from "../../src/runs/replay/index.js";

const args = JSON.parse(process.argv[2] ?? "{}") as {
  trainOnly?: boolean;
  hints?: boolean;
  priors?: Record<string, number>;
  seeds?: number;
  onlineSeeds?: number;
  costWeights?: number[];
  dataset?: string;
};
const folder = args.dataset ?? "../shared/data/terminal-bench-2-32models";
let table = await loadRunTable(folder);
if (args.trainOnly) {
  const ds = await loadDataset(folder);
  const keep = new Set(ds.items.filter((it) => it.meta?.split === "train").map((it) => it.id));
  const idx = table.ids.flatMap((id, i) => (keep.has(id) ? [i] : []));
  table = {
    ...table,
    ids: idx.map((i) => table.ids[i]!),
    texts: idx.map((i) => table.texts[i]!),
    hints: idx.map((i) => table.hints?.[i]),
    rate: idx.map((i) => table.rate[i]!),
  };
}
const r = await replayRuns(table, {
  onlineSeeds: args.onlineSeeds ?? 20,
  crossFitSeeds: args.seeds ?? 5,
  hints: args.hints ?? false,
  ...(args.priors && { priors: args.priors }),
  ...(args.costWeights && { costWeights: args.costWeights }),
});
const f = (p: ReplayPoint) => `${p.success.toFixed(3)}@${(p.costRatio * 100).toFixed(0)}%`;
const cf = r.crossFit;
console.log(JSON.stringify(args), `${table.ids.length} runs`, "best fixed", f(cf.bestFixed));
console.log("single", cf.single.map((p) => `${p.costWeight}:${f(p)}`).join(" "));
console.log("escalation", cf.escalation.map((p) => `${p.costWeight}/${p.cap ?? "none"}:${f(p)}`).join(" "));
console.log("online", f(r.online.anonymous.router), "last third", f(r.online.anonymous.router.lastThird));
