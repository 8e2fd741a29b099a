/**
 * `npx tsx bench/dev/run-robustness.ts [--draws 5] [--quick]`
 *
 * Do the run-level defaults (chosen on Terminal-Bench's training items) hold on agent sets of the same shape that the
 * project does not have? The replay (src/runs/replay, the defaults untouched) on:
 * - random halves of Terminal-Bench's models (16 of 32, `draws` draws by u("D/models/d/M")),
 * - random two-thirds of its tasks (60 of 89, by u("D/tasks/d/ID")),
 * - synthetic run folders from RouterBench (bench/dev/synthetic-runs.ts: 5 questions of one category a "run", rate =
 *   mean label, cost = the recorded costs summed; the only other folder with costs): all 632 runs, and 89-run draws.
 * For each, issue 36's targets, relative to the set's own best fixed model: escalation >= best fixed at <= 35% of its
 * cost, escalation >= best fixed + 0.06 at <= 60%, single choice >= best fixed at <= 100% and >= the best model costing
 * at most 50% of it (chosen on the training folds; 0.629 on Terminal-Bench) at <= 50%, online (models anonymous)
 * >= 0.9 x the best fixed model in hindsight. A target counts as met by the best point of the default curve under its
 * cost cap (as on Terminal-Bench); its paired-bootstrap interval against the best fixed model is printed beside it.
 * Writes bench/results/run-robustness.json and prints a markdown table.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { loadDataset } from "../../adapters/data/load-dataset.js";
import { loadRunTable } from "../../adapters/data/run-dataset.js";
import { replayRuns, type CrossFitPoint, type ReplayResult } from "../../src/runs/replay/index.js";
import { foldOf, type RunTable } from "../../src/runs/replay/protocol.js";
import { bestFixed } from "../../src/runs/replay/references.js";
import { scriptFlags, seedsFlag } from "../flags.js";
import { all, draw, modelHalf, subset, taskDraw } from "./run-sets.js";
import { writeSyntheticRuns } from "./synthetic-runs.js";

const { draws, quick } = scriptFlags(
  "bench/dev/run-robustness.ts",
  { draws: { type: "string" }, quick: { type: "boolean" } },
  z.object({ draws: seedsFlag(5), quick: z.boolean().default(false) }).strict(),
);
const onlineSeeds = quick ? 5 : 20;

interface Variant {
  readonly name: string;
  readonly table: RunTable;
}

const tb = await loadRunTable("terminal-bench-2-32models");
const variants: Variant[] = [{ name: "terminal-bench (all)", table: tb }];
for (let d = 1; d <= draws; d++) {
  variants.push({ name: `tb 16 models #${d}`, table: modelHalf(tb, d) });
}
for (let d = 1; d <= draws; d++) {
  variants.push({ name: `tb 60 tasks #${d}`, table: taskDraw(tb, d, 60) });
}
const dir = mkdtempSync(join(tmpdir(), "irt-router-synthetic-runs-"));
try {
  const rb = await loadDataset("routerbench-subset-11models");
  writeSyntheticRuns(rb, 5, dir);
  const syn = { ...(await loadRunTable(dir)), name: "routerbench-synthetic-runs" };
  variants.push({ name: `routerbench runs (all ${syn.ids.length})`, table: syn });
  for (let d = 1; d <= Math.min(draws, 3); d++) {
    const items = draw(`${syn.name}/tasks/${d}`, syn.ids, tb.ids.length);
    variants.push({ name: `routerbench runs 89 #${d}`, table: subset(syn, items, all(syn.models.length)) });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

interface Target {
  readonly met: boolean;
  readonly point?: CrossFitPoint & { costWeight: number; cap?: number | null };
}

/** The best point under `maxCost` and whether its success reaches `bar`. */
function target(
  points: readonly (CrossFitPoint & { costWeight: number; cap?: number | null })[],
  maxCost: number,
  bar: number,
): Target {
  const under = points.filter((p) => p.costRatio <= maxCost + 1e-9).sort((a, b) => b.success - a.success);
  const point = under[0];
  return point ? { met: point.success >= bar - 1e-9, point } : { met: false };
}

/** Every order of up to `maxLength` distinct models of the table. */
function ordersOf(table: RunTable, maxLength: number): number[][] {
  const M = table.models.length;
  const orders: number[][] = [];
  for (let a = 0; a < M; a++) {
    orders.push([a]);
    if (maxLength === 1) continue;
    for (let b = 0; b < M; b++) {
      if (b === a) continue;
      orders.push([a, b]);
      for (let c = 0; c < M; c++) if (c !== a && c !== b) orders.push([a, b, c]);
    }
  }
  return orders;
}

/** Expected successes and cost (summed over `items`) of running `order` until the first success. */
function scoreOrder(table: RunTable, order: readonly number[], items: readonly number[]): { s: number; c: number } {
  let s = 0;
  let c = 0;
  for (const i of items) {
    let fail = 1;
    for (const m of order) {
      c += fail * table.runCost[m]!;
      fail *= 1 - (Number.isFinite(table.rate[i]![m]!) ? table.rate[i]![m]! : 0);
    }
    s += 1 - fail;
  }
  return { s, c };
}

/** The most successful order on `items` whose cost there is within `cap` x `ref`'s; undefined when none is. */
function bestOrder(
  table: RunTable,
  orders: readonly number[][],
  items: readonly number[],
  ref: number,
  cap: number,
): readonly number[] | undefined {
  let best: readonly number[] | undefined;
  let bestS = -1;
  for (const o of orders) {
    const e = scoreOrder(table, o, items);
    if (e.c <= cap * table.runCost[ref]! * items.length + 1e-9 && e.s > bestS) [best, bestS] = [o, e.s];
  }
  return best;
}

/** Calls `each(train, test)` for the 5 seeds x 5 folds of the replay's cross-fit. */
function forFolds(table: RunTable, each: (train: number[], test: number[]) => void): void {
  for (let seed = 1; seed <= 5; seed++) {
    const fold = table.ids.map((id) => foldOf(table.name, id, seed, 5));
    for (let f = 0; f < 5; f++) {
      each(
        fold.flatMap((g, i) => (g !== f ? [i] : [])),
        fold.flatMap((g, i) => (g === f ? [i] : [])),
      );
    }
  }
}

/**
 * BENCHMARK.md's simple escalation reference on the same folds: one fixed order of up to 3 distinct models for all
 * tasks, the most successful on the four training folds whose mean cost there is within `cap` x the training folds'
 * best fixed model's (that model alone if none is); scored on the fifth. Success and cost ratio over 5 seeds x 5 folds.
 */
function fixedOrder(table: RunTable, cap: number, maxLength = 3): { success: number; costRatio: number } {
  const orders = ordersOf(table, maxLength);
  let S = 0;
  let C = 0;
  let refC = 0;
  let n = 0;
  forFolds(table, (train, test) => {
    const ref = bestFixed(table.rate, train);
    const t = scoreOrder(table, bestOrder(table, orders, train, ref, cap) ?? [ref], test);
    S += t.s;
    C += t.c;
    refC += table.runCost[ref]! * test.length;
    n += test.length;
  });
  return { success: S / n, costRatio: C / refC };
}

/**
 * Could any fixed order reach an escalation target on this set? On each of the cross-fit's folds, the best order of up
 * to 3 distinct models chosen in hindsight on the test fold itself, among those whose cost there is within `cap` x the
 * training folds' best fixed model's (the cap the targets use), scored on that fold; summed over 5 seeds x 5 folds and
 * set against the target's bar, the cross-fitted best fixed model + `lift`. An upper bound for every policy that runs
 * one order for all of a fold's tasks within the cap there (the fixed-order reference, chosen on the training folds,
 * is one of them unless its cost on the test fold passes the cap). Feasible: the bound reaches the bar, and every fold
 * had an order within the cap.
 */
function hindsightOrder(
  table: RunTable,
  cap: number,
  lift: number,
): { success: number; costRatio: number; bar: number; feasible: boolean } {
  const orders = ordersOf(table, 3);
  let S = 0;
  let C = 0;
  let refS = 0;
  let refC = 0;
  let n = 0;
  let everyFold = true;
  forFolds(table, (train, test) => {
    const ref = bestFixed(table.rate, train);
    const order = bestOrder(table, orders, test, ref, cap);
    if (!order) everyFold = false;
    const t = scoreOrder(table, order ?? [ref], test);
    S += t.s;
    C += t.c;
    refS += scoreOrder(table, [ref], test).s;
    refC += table.runCost[ref]! * test.length;
    n += test.length;
  });
  const bar = refS / n + lift;
  return { success: S / n, costRatio: C / refC, bar, feasible: everyFold && S / n >= bar - 1e-9 };
}

const rows: {
  name: string;
  runs: number;
  models: number;
  seconds: number;
  result: ReplayResult;
  targets: Record<string, Target>;
  fixedOrder: Record<"cap35" | "cap60", { success: number; costRatio: number }>;
  hindsightOrder: Record<"cap35" | "cap60", ReturnType<typeof hindsightOrder>>;
  cheapFixed: { success: number; costRatio: number };
}[] = [];
const started = performance.now();
for (const v of variants) {
  const t0 = performance.now();
  const result = await replayRuns(v.table, { onlineSeeds });
  const seconds = (performance.now() - t0) / 1000;
  const cf = result.crossFit;
  const bf = cf.bestFixed.success;
  const online = result.online.anonymous;
  const cheap = fixedOrder(v.table, 0.5, 1);
  const targets: Record<string, Target> = {
    esc35: target(cf.escalation, 0.35, bf),
    esc60: target(cf.escalation, 0.6, bf + 0.06),
    single100: target(cf.single, 1, bf),
    single50: target(cf.single, 0.5, cheap.success),
    online: { met: online.router.success >= 0.9 * online.bestFixedHindsight.success },
  };
  const fixed = { cap35: fixedOrder(v.table, 0.35), cap60: fixedOrder(v.table, 0.6) };
  rows.push({
    name: v.name,
    runs: v.table.ids.length,
    models: v.table.models.length,
    seconds,
    result,
    targets,
    fixedOrder: fixed,
    hindsightOrder: { cap35: hindsightOrder(v.table, 0.35, 0), cap60: hindsightOrder(v.table, 0.6, 0.06) },
    cheapFixed: cheap,
  });
  process.stderr.write(`${v.name}: ${seconds.toFixed(1)} s\n`);
}
const totalSeconds = (performance.now() - started) / 1000;

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ci = (c: [number, number]) =>
  `[${c[0] >= 0 ? "+" : ""}${c[0].toFixed(3)}, ${c[1] >= 0 ? "+" : ""}${c[1].toFixed(3)}]`;
const cell = (t: Target) =>
  t.point
    ? `${t.met ? "yes" : "**no**"}: ${t.point.success.toFixed(3)} at ${pct(t.point.costRatio)} ${ci(t.point.vsBestFixedCi)}`
    : "**no** (no point under the cap)";
console.log(
  `Run-level defaults on other sets (${onlineSeeds} online seeds, 5 cross-fit seeds; ${totalSeconds.toFixed(0)} s). ` +
    "Targets against each set's own best fixed model; cells: met, the best default point under the cap, its " +
    "95% paired-bootstrap interval against the best fixed model. Fixed order: BENCHMARK.md's simple escalation " +
    "reference (one order of up to 3 models chosen on the training folds under the cap) on the same folds. In " +
    "hindsight: on each fold the best such order chosen on the test fold itself under the cap, against the " +
    "target's bar: where it falls short (no), no one order per fold within the cap meets the target. Online: " +
    "the router's success against the best fixed model in hindsight on the same draws, their ratio, and the 95% " +
    "paired-bootstrap interval over tasks of their difference beside the difference 0.9 x would be.\n",
);
console.log(
  "| set | runs x models | best fixed | escalation >= bf at <= 35% | escalation >= bf + 0.06 at <= 60% | fixed order, cap 35% / 60% | in hindsight: order vs bar, 35% / 60% | single >= bf at <= 100% | single >= best model at <= 50% | online >= 0.9 x bf hindsight |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
const fo = (p: { success: number; costRatio: number }) => `${p.success.toFixed(3)} at ${pct(p.costRatio)}`;
const ho = (h: ReturnType<typeof hindsightOrder>) =>
  `${h.feasible ? "yes" : "no"} ${h.success.toFixed(3)} vs ${h.bar.toFixed(3)}`;
for (const r of rows) {
  const o = r.result.online.anonymous;
  console.log(
    `| ${r.name} | ${r.runs} x ${r.models} | ${r.result.crossFit.bestFixed.success.toFixed(3)} | ${cell(r.targets.esc35!)} | ` +
      `${cell(r.targets.esc60!)} | ${fo(r.fixedOrder.cap35)} / ${fo(r.fixedOrder.cap60)} | ${ho(r.hindsightOrder.cap35)} / ${ho(r.hindsightOrder.cap60)} | ${cell(r.targets.single100!)} | ${cell(r.targets.single50!)} (${fo(r.cheapFixed)}) | ${r.targets.online!.met ? "yes" : "**no**"}: ` +
      `${o.router.success.toFixed(3)} vs ${o.bestFixedHindsight.success.toFixed(3)} (${(o.router.success / o.bestFixedHindsight.success).toFixed(2)}; ` +
      `difference ${ci(o.router.vsBestFixedHindsightCi)}, 0.9 x is ${(-0.1 * o.bestFixedHindsight.success).toFixed(3)}) |`,
  );
}
writeFileSync(
  "bench/results/run-robustness.json",
  `${JSON.stringify({ onlineSeeds, draws, totalSeconds, rows: rows.map(({ result, ...r }) => ({ ...r, crossFit: result.crossFit, online: result.online })) }, null, 1)}\n`,
);
