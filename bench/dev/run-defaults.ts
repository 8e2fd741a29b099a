/**
 * `npx tsx bench/dev/run-defaults.ts '<json>'` with json keys: trainOnly (bool), hints (bool), priors (RunPriors),
 * seeds, onlineSeeds, onlineExploration, costWeights, escalation (settings {costWeight, cap, spendTarget?, paceRate?}), dataset (default
 * ../shared/data/terminal-bench-2-32models), tieRule (bool).
 *
 * The run-level replay (src/runs/replay) on a folder of runs, restricted with `trainOnly` to the items whose upstream
 * `split` column is `train` (Terminal-Bench: 69 of 89), where the run-level defaults are chosen: one line per part
 * (cross-fit single choice per cost weight, escalation per setting, online router), success@cost ratio.
 * With `tieRule`, also the single choice "the cheaper of the two most able models unless the dearer one's ability is
 * ahead by at least k posterior sds" (sd of the difference from the two marginal posterior variances of `toPrior()`),
 * for k = 0, 0.5, 1, 2, on the replay's folds (a rule that was measured, not shipped: docs/agents.md).
 */
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { replayRuns } from "../../src/runs/replay/index.js";
import type { ReplayPoint } from "../../src/runs/replay/index.js";
import { RunRouter } from "../../src/runs/run-router.js";
import { anonymousNames, foldOf, type RunTable } from "../../src/runs/replay/protocol.js";
import { bestFixed } from "../../src/runs/replay/references.js";
import { trainItems } from "./run-sets.js";
import { jsonArgument, MAX_SEEDS } from "../flags.js";
import { runRouterOptionsSchema } from "../../src/runs/options.js";
import { z } from "zod";

const share = z.number().finite().nonnegative();
const args = jsonArgument(
  "bench/dev/run-defaults.ts",
  z.strictObject({
    trainOnly: z.boolean().optional(),
    hints: z.boolean().optional(),
    priors: runRouterOptionsSchema.shape.priors,
    seeds: z.number().int().min(1).max(MAX_SEEDS).optional(),
    onlineSeeds: z.number().int().min(1).max(MAX_SEEDS).optional(),
    costWeights: z.array(share).min(1).optional(),
    dataset: z.string().min(1).optional(),
    tieRule: z.boolean().optional(),
    onlineExploration: share.optional(),
    escalation: z
      .array(
        z.strictObject({
          costWeight: share,
          cap: share.nullable(),
          spendTarget: share.positive().optional(),
          paceRate: share.positive().optional(),
        }),
      )
      .optional(),
  }),
  process.argv.slice(2),
  "{}",
  "a JSON object of the keys this file's header lists",
);
const folder = args.dataset ?? "../shared/data/terminal-bench-2-32models";
let table = await loadRunTable(folder);
if (args.trainOnly) table = await trainItems(table, folder);
const r = await replayRuns(table, {
  onlineSeeds: args.onlineSeeds ?? 20,
  crossFitSeeds: args.seeds ?? 5,
  hints: args.hints ?? false,
  ...(args.priors && { priors: args.priors }),
  ...(args.costWeights && { costWeights: args.costWeights }),
  ...(args.escalation && { escalation: args.escalation }),
  ...(args.onlineExploration !== undefined && { onlineExploration: args.onlineExploration }),
});
const f = (p: ReplayPoint) => `${p.success.toFixed(3)}@${(p.costRatio * 100).toFixed(0)}%`;
const cf = r.crossFit;
console.log(JSON.stringify(args), `${table.ids.length} runs`, "best fixed", f(cf.bestFixed));
console.log("single", cf.single.map((p) => `${p.cap !== undefined ? `cap${p.cap}` : p.costWeight}:${f(p)}`).join(" "));
console.log(
  "escalation",
  cf.escalation
    .map(
      (p) => `${p.spendTarget !== undefined ? `pace${p.spendTarget}/` : ""}${p.costWeight}/${p.cap ?? "none"}:${f(p)}`,
    )
    .join(" "),
);
console.log("online", f(r.online.anonymous.router), "last third", f(r.online.anonymous.router.lastThird));

/** The fold-level tie rule of the module comment: success and cost ratio per k, over 5 seeds x 5 folds. */
function tieRule(t: RunTable, ks: readonly number[]): string {
  const names = anonymousNames(t.models);
  const models = Object.fromEntries(t.models.map((m, k) => [names.get(m)!, { runCost: t.runCost[k]! }]));
  const rate = (i: number, m: number) => (Number.isFinite(t.rate[i]![m]!) ? t.rate[i]![m]! : 0);
  const sums = ks.map(() => ({ s: 0, c: 0 }));
  let refC = 0;
  let n = 0;
  for (let seed = 1; seed <= 5; seed++) {
    const fold = t.ids.map((id) => foldOf(t.name, id, seed, 5));
    for (let f = 0; f < 5; f++) {
      const train = fold.flatMap((g, i) => (g !== f ? [i] : []));
      const test = fold.flatMap((g, i) => (g === f ? [i] : []));
      const router = new RunRouter({ models });
      for (const i of train) {
        t.models.forEach((m, k) => {
          if (Number.isFinite(t.rate[i]![k]!))
            router.feedback({ id: t.ids[i]!, text: t.texts[i]! }, names.get(m)!, t.rate[i]![k]!);
        });
      }
      const abilities = router.toPrior().models;
      const a = (m: number) => abilities[names.get(t.models[m]!)!]!.ability;
      const [top, second] = t.models.map((_, m) => m).sort((x, y) => a(y).mean - a(x).mean);
      const z = (a(top!).mean - a(second!).mean) / Math.sqrt(a(top!).variance + a(second!).variance);
      const cheaper = t.runCost[second!]! < t.runCost[top!]! ? second! : top!;
      const ref = bestFixed(t.rate, train);
      ks.forEach((k, j) => {
        const m = z < k ? cheaper : top!;
        for (const i of test) {
          sums[j]!.s += rate(i, m);
          sums[j]!.c += t.runCost[m]!;
        }
      });
      refC += t.runCost[ref]! * test.length;
      n += test.length;
    }
  }
  return ks.map((k, j) => `k=${k}:${(sums[j]!.s / n).toFixed(3)}@${((sums[j]!.c / refC) * 100).toFixed(0)}%`).join(" ");
}
if (args.tieRule) console.log("tie rule", tieRule(table, [0, 0.5, 1, 2]));
