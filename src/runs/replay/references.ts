/** The references of the run-level replay: best fixed model, non-contextual Thompson sampling, oracle. */
import { DatasetFormatError } from "../../errors.js";
import type { Rng } from "../../util/random.js";
import type { RunTable } from "./protocol.js";

/** Mean of the finite values of `xs` (NaN when none). */
function finiteMean(xs: Iterable<number>): number {
  let s = 0;
  let n = 0;
  for (const x of xs) {
    if (!Number.isFinite(x)) continue;
    s += x;
    n++;
  }
  return n > 0 ? s / n : Number.NaN;
}

/**
 * Least share of the items a model must be observed on, relative to the model observed on the most, to be a reference
 * (the best fixed model): a model seen on a few easy tasks is not taken for the best, and one gap in the best model's
 * labels does not hand the reference to a worse model. Every model qualifies in a folder with a label for every pair.
 */
export const REFERENCE_COVERAGE = 0.5;

/** Whether each model is observed on enough of `items` to be a reference (see {@link REFERENCE_COVERAGE}). */
export function referenceEligible(rate: readonly Float64Array[], items: readonly number[]): boolean[] {
  const models = rate[0]?.length ?? 0;
  const seen = Array.from({ length: models }, (_, m) => items.filter((i) => Number.isFinite(rate[i]![m]!)).length);
  const most = Math.max(0, ...seen);
  return seen.map((k) => k > 0 && k >= REFERENCE_COVERAGE * most);
}

/**
 * The model with the highest mean rate over the items of `items` it is observed on, among the models observed on at
 * least half as many of them as the most observed model (`REFERENCE_COVERAGE`; every model, in a folder with a label
 * for every pair). Ties (equal means, as happen with rates that are fractions of a few
 * trials) go to the first in the folder's model order, as an argmax over its columns would. BENCHMARK.md's reference
 * figures were made that way (claude-opus-4-6, listed first, on every Terminal-Bench fold); breaking ties to the
 * cheaper model instead picks gpt-5.3-codex on the 2 of 25 folds where the two tie exactly.
 */
export function bestFixed(rate: readonly Float64Array[], items: readonly number[]): number {
  const eligible = referenceEligible(rate, items);
  let best = 0;
  let bestRate = -Infinity;
  for (let m = 0; m < eligible.length; m++) {
    if (!eligible[m]) continue;
    const r = finiteMean(items.map((i) => rate[i]![m]!));
    if (Number.isFinite(r) && r > bestRate) {
      best = m;
      bestRate = r;
    }
  }
  return best;
}

/** The model with the highest rate on one item (ties: the cheaper). */
export function oracleModel(rates: Float64Array, runCost: Float64Array): number {
  let best = -1;
  for (let m = 0; m < rates.length; m++) {
    if (!Number.isFinite(rates[m]!)) continue;
    if (
      best < 0 ||
      rates[m]! > rates[best]! + 1e-12 ||
      (Math.abs(rates[m]! - rates[best]!) <= 1e-12 && runCost[m]! < runCost[best]!)
    )
      best = m;
  }
  return best;
}

/** A Gamma(shape, 1) draw (Marsaglia-Tsang; shape >= 1). */
function gamma(shape: number, rng: Rng): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const U = rng.next();
    if (U < 1 - 0.0331 * x ** 4 || Math.log(U) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Non-contextual Thompson sampling with a Beta(1, 1) prior per model. */
export class BetaThompson {
  private readonly wins: Float64Array;
  private readonly losses: Float64Array;

  constructor(
    models: number,
    private readonly rng: Rng,
  ) {
    this.wins = new Float64Array(models);
    this.losses = new Float64Array(models);
  }

  /** The model whose draw of its success rate is highest among `allowed`. */
  choose(allowed: readonly number[]): number {
    let best = allowed[0]!;
    let top = -1;
    for (const m of allowed) {
      const x = gamma(1 + this.wins[m]!, this.rng);
      const y = gamma(1 + this.losses[m]!, this.rng);
      const draw = x / (x + y);
      if (draw > top) {
        top = draw;
        best = m;
      }
    }
    return best;
  }

  update(model: number, success: boolean): void {
    if (success) this.wins[model]! += 1;
    else this.losses[model]! += 1;
  }
}

/**
 * The run cost of the reference model `m` (the best fixed one), the unit of every cost the replay reports. A free
 * reference (price 0, e.g. a self-hosted model) leaves no unit: a {@link DatasetFormatError} naming it, not the pacer's
 * "spent ... NaN" the replay stopped with.
 */
export function referenceCost(table: RunTable, m: number): number {
  const cost = table.runCost[m]!;
  if (!(cost > 0)) {
    const model = table.models[m]!;
    throw new DatasetFormatError(
      `${table.name}: the reference model "${model}" (the best fixed model) costs 0 per run, and the replay reports ` +
        `every cost as a ratio to it. Give it its price in models.csv or a cost_usd on its ` +
        `labels (e.g. the cost of serving it), or leave it out of the folder.`,
      { details: { model } },
    );
  }
  return cost;
}
