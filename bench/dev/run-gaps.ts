/**
 * `npx tsx bench/dev/run-gaps.ts [--shares 0,0.1,0.3]` (about 20 s a share alone on 2 cores).
 *
 * The run-level replay (src/runs/replay, the defaults untouched) on Terminal-Bench with a share of its (task, model)
 * labels removed at random (pair (ID, M) removed when u("D/gap/ID/M") < share, ../shared/BENCHMARK.md's hash): what a
 * folder whose models were not all run on every task does to the references and to the router's points at issue 36's
 * cost caps. A task left with no label would be refused; at these shares none is.
 */
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { replayRuns, u, type CrossFitPoint, type RunTable } from "../../src/runs/replay/index.js";
import { decimalFlag, listFlag, scriptFlags } from "../flags.js";
import { z } from "zod";

const { shares } = scriptFlags(
  "bench/dev/run-gaps.ts",
  { shares: { type: "string" } },
  z.object({ shares: listFlag(decimalFlag("a share of the labels", { max: 0.9 })).default([0, 0.1, 0.3]) }),
);
const tb = await loadRunTable("terminal-bench-2-32models");

/** The table with the pairs whose hash falls under `share` left without a label. */
function withGaps(table: RunTable, share: number): RunTable {
  const rate = table.rate.map((row, i) =>
    row.map((r, m) => (u(`${table.name}/gap/${table.ids[i]}/${table.models[m]}`) < share ? Number.NaN : r)),
  );
  return { ...table, rate };
}

/** The best point of `points` under `maxCost`. */
function best(points: readonly CrossFitPoint[], maxCost: number): string {
  const p = points.filter((x) => x.costRatio <= maxCost + 1e-9).sort((a, b) => b.success - a.success)[0];
  return p ? `${p.success.toFixed(3)} at ${(p.costRatio * 100).toFixed(0)}%` : "none";
}

console.log(
  "| labels removed | missing pairs | best fixed | escalation <= 35% | <= 60% | single <= 50% | <= 100% | online (anonymous) / best in hindsight |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const share of shares) {
  const r = await replayRuns(withGaps(tb, share));
  const cf = r.crossFit;
  const on = r.online.anonymous;
  console.log(
    `| ${(share * 100).toFixed(0)}% | ${r.coverage.missing} of ${r.coverage.pairs} | ${cf.bestFixed.success.toFixed(3)} | ` +
      `${best(cf.escalation, 0.35)} | ${best(cf.escalation, 0.6)} | ${best(cf.single, 0.5)} | ${best(cf.single, 1)} | ` +
      `${on.router.success.toFixed(3)} / ${on.bestFixedHindsight.success.toFixed(3)} |`,
  );
}
