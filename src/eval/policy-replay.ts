import { ValidationError } from "../errors.js";
import { rankCandidates } from "../policy/rank.js";
import { describePolicy } from "../policy/schema.js";
import type { Candidate, PolicyConfig } from "../policy/types.js";

/**
 * An offline routing table: for each item and model, what the router knows before the call (predicted
 * p, ex-ante expected cost) and what happened (recorded label and recorded cost). Row-major
 * `nItems x models.length` arrays. A model with a NaN recorded label on an item was not observed
 * there and is not a candidate for it.
 */
export interface ReplayTable {
  readonly models: readonly string[];
  readonly nItems: number;
  /** Predicted p(correct). */
  readonly p: ArrayLike<number>;
  /** Ex-ante expected USD cost the policy decides on. */
  readonly expectedCost: ArrayLike<number>;
  /** Recorded correctness in [0, 1]; NaN = not observed. */
  readonly y: ArrayLike<number>;
  /** Recorded USD cost of the call; NaN = unknown (the expected cost is accounted instead, and counted). */
  readonly cost: ArrayLike<number>;
}

/** Outcome of replaying one routing rule over a table. */
export interface ReplayResult {
  readonly name: string;
  /** The rule's setting in words (e.g. `cost-aware(lambda=20)`), or "" for fixed baselines. */
  readonly setting: string;
  /** Mean recorded label of the chosen calls. */
  readonly accuracy: number;
  /** Total recorded USD spent by the chosen calls. */
  readonly spendUsd: number;
  /** Items routed (items with at least one candidate). */
  readonly items: number;
  /** Fraction of routed items sent to each model (every model of the table, 0 when never chosen). */
  readonly share: Readonly<Record<string, number>>;
  /** Chosen calls whose recorded cost was unknown (their expected cost was accounted). */
  readonly unknownCostCalls: number;
  /** Chosen model index per item (-1 when the item had no candidate). */
  readonly choices: Int32Array;
}

/**
 * Replay a policy over a table in item order. The policy sees only p and the expected cost; the chosen
 * call's recorded label and recorded cost are then accounted. The whole table is one run: a budget
 * policy's `spentUsd` is the recorded spend of the items before.
 *
 * @example
 * ```ts
 * const r = replayPolicy({ kind: "cost-aware", lambda: 20 }, table);
 * console.log(r.accuracy, r.spendUsd, r.share);
 * ```
 */
export function replayPolicy(policy: PolicyConfig, table: ReplayTable, name = describePolicy(policy)): ReplayResult {
  checkTable(table);
  const nModels = table.models.length;
  return account(name, describePolicy(policy), table, (i, spentUsd) => {
    const candidates: Candidate[] = [];
    const index = new Map<string, number>();
    for (let m = 0; m < nModels; m++) {
      const k = i * nModels + m;
      if (Number.isNaN(table.y[k]!)) continue;
      const id = table.models[m]!;
      index.set(id, m);
      candidates.push({ id, p: table.p[k]!, expectedCost: table.expectedCost[k]! });
    }
    if (candidates.length === 0) return -1;
    return index.get(rankCandidates(policy, candidates, { spentUsd })[0]!.id)!;
  });
}

/** Replay "always call this model" (items where it was not observed are skipped). */
export function replayAlways(table: ReplayTable, model: string): ReplayResult {
  checkTable(table);
  const m = table.models.indexOf(model);
  if (m < 0) {
    throw new ValidationError(`Unknown model "${model}": the table has ${table.models.join(", ")}.`, { path: "model" });
  }
  const nModels = table.models.length;
  return account(`always:${model}`, "", table, (i) => (Number.isNaN(table.y[i * nModels + m]!) ? -1 : m));
}

function account(
  name: string,
  setting: string,
  table: ReplayTable,
  choose: (item: number, spentUsd: number) => number,
): ReplayResult {
  const nModels = table.models.length;
  const counts = new Float64Array(nModels);
  const choices = new Int32Array(table.nItems);
  let spent = 0;
  let correct = 0;
  let routed = 0;
  let unknownCostCalls = 0;
  for (let i = 0; i < table.nItems; i++) {
    const m = choose(i, spent);
    choices[i] = m;
    if (m < 0) continue;
    const k = i * nModels + m;
    routed++;
    counts[m]!++;
    correct += table.y[k]!;
    const c = table.cost[k]!;
    if (Number.isFinite(c)) spent += c;
    else {
      spent += table.expectedCost[k]!;
      unknownCostCalls++;
    }
  }
  const share: Record<string, number> = {};
  table.models.forEach((id, m) => (share[id] = routed > 0 ? counts[m]! / routed : 0));
  return {
    name,
    setting,
    accuracy: routed > 0 ? correct / routed : NaN,
    spendUsd: spent,
    items: routed,
    share,
    unknownCostCalls,
    choices,
  };
}

function checkTable(t: ReplayTable): void {
  const n = t.nItems * t.models.length;
  if (!Number.isInteger(t.nItems) || t.nItems < 0) {
    throw new ValidationError(`table.nItems must be a non-negative integer, got ${t.nItems}.`, {
      path: "table.nItems",
    });
  }
  for (const key of ["p", "expectedCost", "y", "cost"] as const) {
    if (t[key].length !== n) {
      throw new ValidationError(
        `table.${key} has ${t[key].length} entries; expected nItems x models = ${t.nItems} x ${t.models.length} = ${n}.`,
        { path: `table.${key}` },
      );
    }
  }
}

/** One evaluated setting of a policy family (e.g. one lambda), on the split used to choose settings. */
export interface SettingPoint<S> {
  readonly setting: S;
  readonly accuracy: number;
  readonly spendUsd: number;
}

/**
 * The setting with the best validation accuracy among those spending at most `capUsd`, robust to the
 * noise of a small validation split: each setting's accuracy is averaged with its `window` neighbours on
 * each side (settings in grid order, default 2), and ties go to the HIGHER spend (the cap is what the
 * user is willing to pay; on a flat stretch the setting that spends more is not worse in expectation),
 * then to the earlier setting. When none fits the cap, the cheapest setting. Use it on the VALIDATION
 * split only.
 *
 * @example
 * ```ts
 * const pts = lambdas.map((l) => ({ ...replayPolicy({ kind: "cost-aware", lambda: l }, val), setting: l }));
 * const best = bestUnderCap(pts, 0.5 * gpt4Val.spendUsd).setting;
 * ```
 */
export function bestUnderCap<S>(
  points: readonly SettingPoint<S>[],
  capUsd: number,
  window = 2,
): SettingPoint<S> & { smoothedAccuracy: number } {
  if (points.length === 0) throw new ValidationError("bestUnderCap needs at least one setting.", { path: "points" });
  const smoothed = points.map((_, i) => {
    const lo = Math.max(0, i - window);
    const hi = Math.min(points.length - 1, i + window);
    let sum = 0;
    for (let j = lo; j <= hi; j++) sum += points[j]!.accuracy;
    return sum / (hi - lo + 1);
  });
  let best = -1;
  points.forEach((p, i) => {
    if (!(p.spendUsd <= capUsd)) return;
    const d = best < 0 ? Infinity : smoothed[i]! - smoothed[best]!;
    if (d > 1e-12 || (Math.abs(d) <= 1e-12 && p.spendUsd > points[best]!.spendUsd)) best = i;
  });
  if (best < 0) points.forEach((p, i) => (best < 0 || p.spendUsd < points[best]!.spendUsd ? (best = i) : undefined));
  return { ...points[best]!, smoothedAccuracy: smoothed[best]! };
}

/** `n` log-spaced values from `lo` to `hi` inclusive (both > 0). */
export function logGrid(lo: number, hi: number, n: number): number[] {
  if (!(lo > 0 && hi >= lo && n >= 2)) {
    throw new ValidationError(`logGrid needs 0 < lo <= hi and n >= 2, got lo=${lo} hi=${hi} n=${n}.`, { path: "grid" });
  }
  return Array.from({ length: n }, (_, k) => Number((lo * (hi / lo) ** (k / (n - 1))).toPrecision(4)));
}

/**
 * Mean implied output tokens of each model from recorded costs: (recorded cost - inputTokens x input
 * price) / output price per call, floored at 0, averaged over the given items (use the TRAIN split).
 * `median` is reported too. Also checks the price against the records: `belowInputCost` counts calls
 * whose recorded cost is below the input-token cost at list price (more than 2% below when tokens
 * are estimated), which would mean the price is too high.
 */
export function impliedOutputTokens(
  table: Pick<ReplayTable, "models" | "nItems" | "y" | "cost">,
  items: readonly number[],
  inputTokens: ArrayLike<number>,
  prices: readonly ({ inputPer1M: number; outputPer1M: number } | undefined)[],
): { mean: number; median: number; n: number; belowInputCost: number }[] {
  const nModels = table.models.length;
  return table.models.map((_, m) => {
    const price = prices[m];
    const out: number[] = [];
    let below = 0;
    if (price && price.outputPer1M > 0) {
      for (const i of items) {
        const k = i * nModels + m;
        const c = table.cost[k]!;
        if (Number.isNaN(table.y[k]!) || !Number.isFinite(c)) continue;
        const inputCost = (inputTokens[i]! * price.inputPer1M) / 1e6;
        if (c < 0.98 * inputCost) below++;
        out.push(Math.max(0, ((c - inputCost) * 1e6) / price.outputPer1M));
      }
    }
    const sorted = [...out].sort((a, b) => a - b);
    return {
      mean: out.length > 0 ? out.reduce((a, b) => a + b, 0) / out.length : NaN,
      median: sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)]! : NaN,
      n: out.length,
      belowInputCost: below,
    };
  });
}
