/**
 * The online part of the replay (../shared/BENCHMARK.md, "Agent runs with real outcomes"): for each seed the runs come
 * in the stream order, a run's outcome is drawn from the item's rate, and the router (a fresh `RunRouter`, through its
 * public API: `route`, then `feedback`) learns from each outcome; the references (non-contextual Thompson sampling with
 * Beta(1,1), the best fixed model in hindsight, the oracle) see the same draws. Each policy's success comes with a 95%
 * bootstrap interval over tasks, and its difference from the best fixed model in hindsight with a paired one.
 */
import { RunRouter } from "../run-router.js";
import type { RunRouterOptions } from "../options.js";
import { seededRng } from "../../util/random.js";
import { bootstrapMeanCi, bootstrapPlan, type BootstrapPlan } from "../../stats/bootstrap.js";
import { BetaThompson, bestFixed, oracleModel, referenceCost, referenceEligible } from "./references.js";
import {
  anonymousNames,
  drawnOutcome,
  modelsConfig,
  observedRate,
  streamOrder,
  taskAt,
  observedOnly,
  type RunTable,
} from "./protocol.js";
import { ReferencePairing, type PairedSums } from "./reference-pairing.js";

/** An online policy's figures over the whole stream and over its last third, with 95% intervals over tasks. */
export interface OnlinePoint {
  /** Mean success over every run of every stream. */
  readonly success: number;
  /** Mean run cost as a ratio to the run cost of the best fixed model on all runs. */
  readonly costRatio: number;
  /** Interval of the success (bootstrap over tasks, each task's outcomes summed over the seeds). */
  readonly successCi: [number, number];
  /** Interval of the success minus the best fixed model's in hindsight on the same draws (paired over tasks). */
  readonly vsBestFixedHindsightCi: [number, number];
  /** The same over the last third of each stream (after two thirds of the tasks were learned from). */
  readonly lastThird: { readonly success: number; readonly costRatio: number };
}

/** Exploration of the online router (see RunRouterOptions.exploration). */
export const DEFAULT_ONLINE_EXPLORATION = 0;

/** Settings of the online stream. */
export interface OnlineSettings {
  readonly seeds: number;
  readonly exploration: number;
  /** Whether each item's category is given to the router as its task hint. */
  readonly hints: boolean;
  readonly priors?: RunRouterOptions["priors"];
}

/** One policy's outcomes and costs over the streams of every seed, per task and in total. */
class Tally implements PairedSums {
  private readonly all = { s: 0, c: 0, n: 0 };
  private readonly last = { s: 0, c: 0, n: 0 };
  /** Successes on each task, summed over the seeds. */
  readonly item: Float64Array;
  /** The same over the streams where the best fixed model in hindsight was scored on the task. */
  readonly paired: Float64Array;
  /** This stream's outcome on each task. */
  private readonly now: Float64Array;

  constructor(items: number) {
    this.item = new Float64Array(items);
    this.paired = new Float64Array(items);
    this.now = new Float64Array(items);
  }

  add(i: number, success: boolean, costRatio: number, inLastThird: boolean): void {
    this.item[i]! += Number(success);
    this.now[i] = Number(success);
    for (const t of inLastThird ? [this.all, this.last] : [this.all]) {
      t.s += Number(success);
      t.c += costRatio;
      t.n += 1;
    }
  }

  /** Counts this stream's outcome on task `i` as paired with the reference (scored on it in this stream). */
  pair(i: number): void {
    this.paired[i]! += this.now[i]!;
  }

  point(plan: BootstrapPlan, pairing: ReferencePairing, hindsight: Tally): OnlinePoint {
    const p = (t: { s: number; c: number; n: number }) => ({ success: t.s / t.n, costRatio: t.c / t.n });
    const own = this === hindsight;
    const { success, costRatio } = p(this.all);
    return {
      success: own ? pairing.referenceSuccess(this, success) : success,
      costRatio,
      successCi: own ? pairing.referenceCi(this, plan) : pairing.perRunCi(bootstrapMeanCi(this.item, plan)),
      vsBestFixedHindsightCi: pairing.diffCi(this, hindsight, plan),
      lastThird: p(this.last),
    };
  }
}

/** The online stream of every seed (see the module comment). */
export function onlineStream(table: RunTable, settings: OnlineSettings, progress: (m: string) => void) {
  const { seeds } = settings;
  const anon = anonymousNames(table.models);
  const named = new Map(table.models.map((m) => [m, m]));
  const all = table.ids.map((_, i) => i);
  const refCost = referenceCost(table, bestFixed(table.rate, all));
  const N = table.ids.length;
  const tallies = {
    router: new Tally(N),
    named: new Tally(N),
    thompson: new Tally(N),
    hindsight: new Tally(N),
    oracle: new Tally(N),
  };
  const M = table.models.length;
  // the best model in hindsight is scored on the tasks it has a label on (all, in a folder without gaps)
  const pairing = new ReferencePairing(N, (x) => x / seeds);
  for (let seed = 1; seed <= seeds; seed++) {
    const order = streamOrder(table.name, table.ids, seed);
    const cut = Math.floor((2 * order.length) / 3);
    // a run's outcome, asked only of a model observed on the task
    const outcome = (i: number, m: number) =>
      drawnOutcome(table.name, table.ids[i]!, table.models[m]!, seed, observedRate(table, i, m));
    for (const [tally, names] of [
      [tallies.router, anon],
      [tallies.named, named],
    ] as const) {
      const router = new RunRouter({
        models: modelsConfig(table, names),
        exploration: settings.exploration,
        seed,
        priors: settings.priors,
      });
      const index = new Map(table.models.map((m, k) => [names.get(m)!, k]));
      const observed = observedOnly(table, names);
      order.forEach((i, pos) => {
        const task = taskAt(table, i, settings.hints);
        const chosen = router.route(task, observed[i]).chosen;
        const m = index.get(chosen)!;
        const y = outcome(i, m);
        router.feedback(task, chosen, y);
        tally.add(i, y, table.runCost[m]! / refCost, pos >= cut);
      });
    }
    const ts = new BetaThompson(M, seededRng(seed));
    const labelled = (i: number) => table.models.flatMap((_, m) => (Number.isFinite(table.rate[i]![m]!) ? [m] : []));
    order.forEach((i, pos) => {
      const m = ts.choose(labelled(i));
      const y = outcome(i, m);
      ts.update(m, y);
      tallies.thompson.add(i, y, table.runCost[m]! / refCost, pos >= cut);
    });
    // Best fixed in hindsight on this stream's draws, among the models observed on the most tasks, scored on those.
    const best = hindsightBest(table, order, outcome);
    order.forEach((i, pos) => {
      const scored = Number.isFinite(table.rate[i]![best]!);
      pairing.note(i, scored);
      if (scored) tallies.hindsight.add(i, outcome(i, best), table.runCost[best]! / refCost, pos >= cut);
      const o = oracleModel(table.rate[i]!, table.runCost);
      tallies.oracle.add(i, outcome(i, o), table.runCost[o]! / refCost, pos >= cut);
      if (scored) Object.values(tallies).forEach((t) => t.pair(i));
    });
    progress(`online seed ${seed}/${seeds} done`);
  }
  const plan = bootstrapPlan(N, 1000, 1);
  const point = (t: Tally) => t.point(plan, pairing, tallies.hindsight);
  return {
    seeds,
    anonymous: {
      router: point(tallies.router),
      thompson: point(tallies.thompson),
      bestFixedHindsight: point(tallies.hindsight),
      oracle: point(tallies.oracle),
    },
    named: { router: point(tallies.named) },
  };
}

/**
 * The model with the highest success on a stream's draws, over the tasks it is observed on, among the models observed
 * on enough of them (as the cross-fit's reference, {@link referenceEligible}); ties go to the cheaper.
 */
function hindsightBest(table: RunTable, order: readonly number[], outcome: (i: number, m: number) => boolean): number {
  const eligible = referenceEligible(table.rate, order);
  let best = eligible.indexOf(true);
  let bestRate = -1;
  for (let m = 0; m < table.models.length; m++) {
    if (!eligible[m]) continue;
    const seen = order.filter((i) => Number.isFinite(table.rate[i]![m]!));
    const rate = seen.reduce((s, i) => s + Number(outcome(i, m)), 0) / seen.length;
    if (rate > bestRate || (rate === bestRate && table.runCost[m]! < table.runCost[best]!)) {
      best = m;
      bestRate = rate;
    }
  }
  return best;
}
