/**
 * Figures of the agent-run benchmark with their uncertainty. Runs share items (a step is an item, and runs of every
 * seed are drawn from the same test items), so runs are not independent: intervals resample the test ITEMS. Each
 * bootstrap resample draws the items with replacement (`bootstrapPlan`, src/eval/bootstrap.ts) and weighs every run
 * by the mean multiplicity of its steps' items (a run of items drawn twice counts twice, a run of items not drawn
 * does not count); every row and every seed uses the same resamples, so differences between rows are paired.
 */
import { bootstrapPlan, percentileInterval, type BootstrapPlan } from "../../src/stats/bootstrap.js";
import type { RunResult } from "./run-model.js";

/** Per-resample weights of a set of runs (resamples x runs, row-major). */
export interface RunWeights {
  readonly resamples: number;
  readonly runs: number;
  readonly w: Float64Array;
}

/**
 * The weight of each run in each resample: the mean, over its steps, of how often the resample drew the step's item
 * (`pool` lists the items the resamples draw from: the test items).
 */
export function runWeights(
  runs: readonly Pick<RunResult, "items">[],
  pool: readonly number[],
  plan: BootstrapPlan,
): RunWeights {
  if (plan.n !== pool.length)
    throw new RangeError(`runWeights: a plan over ${plan.n} items for a pool of ${pool.length}`);
  const slot = new Map(pool.map((item, k) => [item, k]));
  const stepSlots = runs.map((r) =>
    r.items.map((i) => {
      const k = slot.get(i);
      if (k === undefined) throw new RangeError(`runWeights: item ${i} of a run is not in the resampled pool`);
      return k;
    }),
  );
  const w = new Float64Array(plan.resamples * runs.length);
  const count = new Float64Array(pool.length);
  for (let b = 0; b < plan.resamples; b++) {
    count.fill(0);
    for (let k = 0; k < plan.n; k++) count[plan.indices[b * plan.n + k]!]!++;
    stepSlots.forEach((slots, r) => {
      let s = 0;
      for (const k of slots) s += count[k]!;
      w[b * runs.length + r] = s / slots.length;
    });
  }
  return { resamples: plan.resamples, runs: runs.length, w };
}

/** A figure and its 95% interval. */
export interface Estimate {
  readonly value: number;
  readonly ci95: [number, number];
}

/** ratio of weighted sums sum(w num) / sum(w den), at the point (weights 1) and in every resample. */
function ratioEstimate(
  num: ArrayLike<number>,
  den: ArrayLike<number>,
  weights: RunWeights,
): Estimate & { stats: Float64Array } {
  const n = weights.runs;
  let sn = 0;
  let sd = 0;
  for (let r = 0; r < n; r++) {
    sn += num[r]!;
    sd += den[r]!;
  }
  const stats = new Float64Array(weights.resamples);
  for (let b = 0; b < weights.resamples; b++) {
    let a = 0;
    let c = 0;
    for (let r = 0; r < n; r++) {
      const w = weights.w[b * n + r]!;
      a += w * num[r]!;
      c += w * den[r]!;
    }
    stats[b] = c > 0 ? a / c : NaN;
  }
  return { value: sd > 0 ? sn / sd : NaN, ci95: percentileInterval(stats), stats };
}

/** The figures of one row, each with its interval. */
export interface RowFigures {
  readonly name: string;
  /** The row's setting in words (e.g. the policy chosen on val). */
  readonly setting: string;
  readonly runs: number;
  readonly success: Estimate;
  readonly costPerRun: Estimate;
  /** Cost per run over always-strongest's, paired (same resamples). */
  readonly costRatio: Estimate;
  readonly cachedShare: Estimate;
  readonly switchesPerRun: Estimate;
  readonly callsPerRun: number;
}

/**
 * The figures of a row from its runs (all seeds pooled, in the same order as `baseline`'s runs, which are the same
 * run specs played by always-strongest).
 */
export function rowFigures(
  name: string,
  setting: string,
  runs: readonly RunResult[],
  weights: RunWeights,
  baseline: readonly RunResult[],
): RowFigures {
  if (runs.length !== weights.runs || baseline.length !== runs.length)
    throw new RangeError(
      `rowFigures(${name}): ${runs.length} runs, ${weights.runs} weighted, ${baseline.length} baseline`,
    );
  const ones = new Float64Array(runs.length).fill(1);
  const success = ratioEstimate(
    Float64Array.from(runs, (r) => (r.success ? 1 : 0)),
    ones,
    weights,
  );
  const cost = Float64Array.from(runs, (r) => r.costUsd);
  const costPerRun = ratioEstimate(cost, ones, weights);
  const ratio = ratioEstimate(
    cost,
    Float64Array.from(baseline, (r) => r.costUsd),
    weights,
  );
  const cachedShare = ratioEstimate(
    Float64Array.from(runs, (r) => r.cachedTokens),
    Float64Array.from(runs, (r) => r.inputTokens),
    weights,
  );
  const switchesPerRun = ratioEstimate(
    Float64Array.from(runs, (r) => r.switches),
    ones,
    weights,
  );
  const strip = ({ value, ci95 }: Estimate): Estimate => ({ value, ci95 });
  return {
    name,
    setting,
    runs: runs.length,
    success: strip(success),
    costPerRun: strip(costPerRun),
    costRatio: strip(ratio),
    cachedShare: strip(cachedShare),
    switchesPerRun: strip(switchesPerRun),
    callsPerRun: runs.reduce((s, r) => s + r.calls, 0) / runs.length,
  };
}

/** Paired 95% interval of a row's mean minus another's (same runs, same resamples): success or cost per run. */
export function pairedDiff(
  a: readonly RunResult[],
  b: readonly RunResult[],
  weights: RunWeights,
  of: "success" | "cost",
): Estimate {
  const v = (r: RunResult) => (of === "success" ? (r.success ? 1 : 0) : r.costUsd);
  const diff = Float64Array.from(a, (r, k) => v(r) - v(b[k]!));
  const { value, ci95 } = ratioEstimate(diff, new Float64Array(a.length).fill(1), weights);
  return { value, ci95 };
}

/** The bootstrap plan over the test items (1,000 resamples, seeded). */
export function testPlan(pool: readonly number[], resamples = 1000, seed = 20): BootstrapPlan {
  return bootstrapPlan(pool.length, resamples, seed);
}

/** Names of the rows on the success-vs-cost frontier: no other row succeeds more at no more cost. */
export function frontier(rows: readonly Pick<RowFigures, "name" | "success" | "costPerRun">[]): string[] {
  return rows
    .filter(
      (r) =>
        !rows.some((o) => o !== r && o.costPerRun.value <= r.costPerRun.value && o.success.value > r.success.value),
    )
    .sort((x, y) => x.costPerRun.value - y.costPerRun.value)
    .map((r) => r.name);
}
