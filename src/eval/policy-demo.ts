import { z } from "zod";
import { ValidationError } from "../errors.js";
import { parseWith } from "../util/validate.js";
import type { CorrectnessDataset, ModelPrice } from "../data/types.js";
import { expectedCostUsd } from "../policy/expected-cost.js";
import {
  bestUnderCap,
  impliedOutputTokens,
  logGrid,
  replayAlways,
  replayPolicy,
  type ReplayResult,
  type ReplayTable,
} from "./policy-replay.js";
import { knnOutputTokens } from "../policy/output-tokens.js";
import { describePolicy } from "../policy/schema.js";
import type { PolicyConfig } from "../policy/types.js";

/** How the demo chooses each policy's setting on the validation split. */
export interface DemoSettings {
  /** Model the spend caps are relative to (default `gpt-4-1106-preview`). */
  readonly referenceModel: string;
  /** Spend cap of the main cost-aware row, cheapest-above and budget, as a fraction of the reference model's validation spend (default 0.5). */
  readonly mainCap: number;
  /** Spend cap of the cheaper cost-aware row (default 0.2). */
  readonly cheapCap: number;
  /** Cost weights tried (default 0 and 49 log-spaced values from 1 to 1e4 per USD). */
  readonly lambdas: readonly number[];
  /** Thresholds tried for cheapest-above (default 0.30 to 0.99 by 0.01). */
  readonly taus: readonly number[];
  /** Budget pressures tried (default 17 log-spaced values from 0.01 to 100). */
  readonly pressures: readonly number[];
}

/** Zod schema of {@link DemoSettings} (every field optional in `runDemo`; unknown keys are errors). */
const demoSettingsSchema = z.strictObject({
  referenceModel: z.string().min(1).optional(),
  mainCap: z.number().finite().positive().optional(),
  cheapCap: z.number().finite().positive().optional(),
  lambdas: z.array(z.number().finite().nonnegative()).min(1).optional(),
  taus: z.array(z.number().min(0).max(1)).min(1).optional(),
  pressures: z.array(z.number().finite().positive()).min(1).optional(),
});

export const DEFAULT_DEMO_SETTINGS: DemoSettings = {
  referenceModel: "gpt-4-1106-preview",
  mainCap: 0.5,
  cheapCap: 0.2,
  lambdas: [0, ...logGrid(1, 1e4, 49)],
  taus: Array.from({ length: 70 }, (_, k) => Number((0.3 + k / 100).toFixed(2))),
  pressures: logGrid(0.01, 100, 17),
};

/** One row of the demo's result table. */
export interface DemoRow {
  readonly name: string;
  readonly accuracy: number;
  readonly spendUsd: number;
  /** The policy setting, chosen on validation ("" for fixed baselines). */
  readonly setting: string;
  readonly share: Readonly<Record<string, number>>;
  /** How the setting was chosen, and its validation figures. */
  readonly chosenOn?: { readonly rule: string; readonly valAccuracy: number; readonly valSpendUsd: number };
  readonly policy?: PolicyConfig;
}

/** A point of the cost-aware policy's cost-accuracy curve on the test split. */
export interface CurveRow {
  readonly lambda: number;
  readonly accuracy: number;
  readonly spendUsd: number;
  /** Spend as a fraction of the reference model's test spend. */
  readonly spendFraction: number;
}

export interface DemoReport {
  readonly items: number;
  readonly valItems: number;
  readonly referenceModel: string;
  readonly cheapestModel: string;
  /** Policy rows then baselines: quality, cost-aware (main), cost-aware (cheaper), cheapest-above, budget, always:<reference>, always:<cheapest>. */
  readonly rows: readonly DemoRow[];
  /** always:<model> for every model, in table order. */
  readonly always: readonly DemoRow[];
  readonly curve: readonly CurveRow[];
}

/**
 * The offline demo: chooses every policy's setting on the validation table, then replays each policy
 * and the single-model baselines on the test table.
 *
 * - cost-aware (main): the lambda with the best validation accuracy at <= `mainCap` of the reference
 *   model's validation spend; cost-aware (cheaper): the same at <= `cheapCap`.
 * - cheapest-above: the tau with the best validation accuracy at <= `mainCap`.
 * - budget: maxUsdPerRun = mainCap x the reference model's mean validation cost per item x the number
 *   of items replayed (the whole split is one run); the pressure with the best validation accuracy.
 * - always-cheapest: the model with the lowest mean expected cost on validation.
 *
 * @throws ValidationError naming the bad field (`settings.mainCap`, ...) when a setting is out of range,
 * an empty grid, or an unknown key; or when the tables do not match.
 *
 * @example
 * ```ts
 * const report = runDemo(valTable, testTable);
 * for (const row of report.rows) console.log(row.name, row.accuracy, row.spendUsd);
 * ```
 */
export function runDemo(val: ReplayTable, test: ReplayTable, settings: Partial<DemoSettings> = {}): DemoReport {
  const s = checkedDemo(val, test, settings);
  const refVal = replayAlways(val, s.referenceModel);
  if (!(refVal.spendUsd > 0)) {
    throw new ValidationError(
      `Reference model "${s.referenceModel}" spent $${refVal.spendUsd} on the validation split: the spend caps are fractions of its spend, so it must be a model with a recorded cost.`,
      { path: "settings.referenceModel" },
    );
  }
  const rows: DemoRow[] = choosePolicies(val, test, s, refVal).map((c) => {
    const r = replayPolicy(c.policy, test, c.name);
    return {
      name: c.name,
      accuracy: r.accuracy,
      spendUsd: r.spendUsd,
      setting: describePolicy(c.policy),
      share: r.share,
      policy: c.policy,
      chosenOn: { rule: c.rule, valAccuracy: c.val.accuracy, valSpendUsd: c.val.spendUsd },
    };
  });
  const always = test.models.map((m) => toRow(replayAlways(test, m)));
  const cheapestModel = cheapestByExpectedCost(val);
  const ref = always.find((r) => r.name === `always:${s.referenceModel}`)!;
  rows.push(
    ref,
    always.find((r) => r.name === `always:${cheapestModel}`)!,
  );
  const curveLambdas = [0, ...logGrid(3, 100, 7), 300, 1000, 1e5];
  const curve = curveLambdas.map((lambda) => {
    const r = replayPolicy({ kind: "cost-aware", lambda }, test);
    return { lambda, accuracy: r.accuracy, spendUsd: r.spendUsd, spendFraction: r.spendUsd / ref.spendUsd };
  });
  const { nItems: items } = test;
  return { items, valItems: val.nItems, referenceModel: s.referenceModel, cheapestModel, rows, always, curve };
}

/** The settings with their defaults, checked against the tables; a ValidationError names what does not match. */
function checkedDemo(val: ReplayTable, test: ReplayTable, settings: Partial<DemoSettings>): DemoSettings {
  const given = parseWith(demoSettingsSchema, settings ?? {}, "settings");
  // A key given as undefined keeps its default (a plain spread would set it to undefined).
  const s: DemoSettings = {
    ...DEFAULT_DEMO_SETTINGS,
    ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
  };
  if (val.models.join("\n") !== test.models.join("\n")) {
    throw new ValidationError("The validation and test tables must list the same models in the same order.", {
      path: "test.models",
    });
  }
  if (!test.models.includes(s.referenceModel)) {
    throw new ValidationError(
      `Reference model "${s.referenceModel}" is not among the models (${test.models.join(", ")}).`,
      { path: "settings.referenceModel" },
    );
  }
  return s;
}

/** A policy chosen on the validation split: its name, the rule that chose it and its val figures. */
interface ChosenPolicy {
  name: string;
  policy: PolicyConfig;
  rule: string;
  val: ReplayResult | { accuracy: number; spendUsd: number };
}

/** Each demo policy's setting, chosen on the validation split under the spend caps (fractions of the reference's). */
function choosePolicies(val: ReplayTable, test: ReplayTable, s: DemoSettings, refVal: ReplayResult): ChosenPolicy[] {
  const mainCapUsd = s.mainCap * refVal.spendUsd;
  const cheapCapUsd = s.cheapCap * refVal.spendUsd;
  const pct = (f: number) => `${Math.round(f * 100)}%`;
  const lambdaPts = s.lambdas.map((lambda) => ({
    ...replayPolicy({ kind: "cost-aware", lambda }, val),
    setting: lambda,
  }));
  const tauPts = s.taus.map((tau) => ({ ...replayPolicy({ kind: "cheapest-above", tau }, val), setting: tau }));
  const perItemBudget = mainCapUsd / Math.max(1, refVal.items);
  const pressurePts = s.pressures.map((pressure) => ({
    ...replayPolicy({ kind: "budget", maxUsdPerRun: perItemBudget * val.nItems, pressure }, val),
    setting: pressure,
  }));
  const underMain = `best smoothed val accuracy at <= ${pct(s.mainCap)} of ${s.referenceModel}'s val spend`;
  const main = bestUnderCap(lambdaPts, mainCapUsd);
  const cheap = bestUnderCap(lambdaPts, cheapCapUsd);
  const tau = bestUnderCap(tauPts, mainCapUsd);
  const pressure = bestUnderCap(pressurePts, Infinity);
  const maxUsdPerRun = Number((perItemBudget * test.nItems).toPrecision(4));
  return [
    { name: "quality", policy: { kind: "quality" }, rule: "no setting", val: replayPolicy({ kind: "quality" }, val) },
    { name: "cost-aware", policy: { kind: "cost-aware", lambda: main.setting }, rule: underMain, val: main },
    {
      name: "cost-aware (cheaper)",
      policy: { kind: "cost-aware", lambda: cheap.setting },
      rule: `best smoothed val accuracy at <= ${pct(s.cheapCap)} of ${s.referenceModel}'s val spend`,
      val: cheap,
    },
    { name: "cheapest-above", policy: { kind: "cheapest-above", tau: tau.setting }, rule: underMain, val: tau },
    {
      name: "budget",
      policy: { kind: "budget", maxUsdPerRun, pressure: pressure.setting },
      rule: `cap = ${pct(s.mainCap)} of ${s.referenceModel}'s mean val cost per item x ${test.nItems} items; pressure: best smoothed val accuracy`,
      val: pressure,
    },
  ];
}

function toRow(r: ReplayResult): DemoRow {
  return { name: r.name, accuracy: r.accuracy, spendUsd: r.spendUsd, setting: r.setting, share: r.share };
}

function cheapestByExpectedCost(t: ReplayTable): string {
  const n = t.models.length;
  let best = 0;
  let bestMean = Infinity;
  for (let m = 0; m < n; m++) {
    let sum = 0;
    for (let i = 0; i < t.nItems; i++) sum += t.expectedCost[i * n + m]!;
    const mean = sum / Math.max(1, t.nItems);
    if (mean < bestMean) {
      bestMean = mean;
      best = m;
    }
  }
  return t.models[best]!;
}

/** Inputs of {@link buildReplayTables}: a dataset with recorded costs, predictions, and cost inputs. */
export interface ReplayTableInputs {
  readonly dataset: CorrectnessDataset;
  /** Item indices of each table (e.g. `datasetSplits(ds)`); `train` is used only for expected output tokens. */
  readonly splits: {
    readonly train: readonly number[];
    readonly val: readonly number[];
    readonly test: readonly number[];
  };
  /** Predicted p per (item, model): `predictions(itemIndex)` returns one p per dataset model, in order. Called for val and test items only. */
  readonly predictions: (item: number) => ArrayLike<number>;
  /** Estimated input tokens per dataset item (of the full prompt the model is billed for). */
  readonly inputTokens: ArrayLike<number>;
  /** List price per dataset model. */
  readonly prices: readonly ModelPrice[];
  /**
   * Embeddings of every dataset item (row-major, rows in dataset item order). When given, expected output
   * tokens come from the k nearest TRAIN prompts ({@link knnOutputTokens}); otherwise each model's TRAIN mean.
   */
  readonly embeddings?: { readonly vectors: Float32Array; readonly dim: number };
  /** Neighbours of the output-length estimate (default 25). */
  readonly k?: number;
}

/** Expected output tokens of each model, learned from the TRAIN split's recorded costs. */
export interface OutputTokenEstimate {
  readonly model: string;
  readonly mean: number;
  readonly median: number;
  readonly trainCalls: number;
  readonly belowInputCost: number;
}

/**
 * Builds the val and test replay tables: expected cost = input tokens x input price + expected output
 * tokens x output price, where the expected output tokens are learned from the TRAIN split's recorded
 * costs (implied tokens = (recorded cost - input tokens x input price) / output price): the mean over the
 * k most similar train prompts when embeddings are given, else the model's train mean. Recorded labels
 * and costs come from the dataset.
 */
export function buildReplayTables(inputs: ReplayTableInputs): {
  val: ReplayTable;
  test: ReplayTable;
  outputTokens: OutputTokenEstimate[];
  outputTokensMethod: string;
} {
  const { dataset: ds, splits, prices, inputTokens } = inputs;
  const nModels = ds.models.length;
  if (!ds.labels.cost) {
    throw new ValidationError(`Dataset "${ds.name}" has no recorded costs; the demo replays recorded costs.`, {
      path: "dataset.labels.cost",
    });
  }
  if (prices.length !== nModels) {
    throw new ValidationError(`prices has ${prices.length} entries; the dataset has ${nModels} models.`, {
      path: "prices",
    });
  }
  const full = denseRecorded(
    ds,
    Array.from({ length: ds.items.length }, (_, i) => i),
  );
  const implied = impliedOutputTokens(full, splits.train, inputTokens, prices);
  const outputTokens = implied.map((o, m) => ({
    model: ds.models[m]!,
    mean: o.mean,
    median: o.median,
    trainCalls: o.n,
    belowInputCost: o.belowInputCost,
  }));
  const make = (rows: readonly number[]): ReplayTable => {
    const { y, cost } = denseRecorded(ds, rows);
    const outKnn = knnOutputTokensOf(inputs, full, rows);
    const p = new Float64Array(rows.length * nModels);
    const expectedCost = new Float64Array(rows.length * nModels);
    rows.forEach((item, r) => {
      const pr = inputs.predictions(item);
      if (pr.length !== nModels) {
        throw new ValidationError(
          `predictions(${item}) gave ${pr.length} values; expected ${nModels} (one per model).`,
          { path: "predictions" },
        );
      }
      for (let m = 0; m < nModels; m++) {
        p[r * nModels + m] = pr[m]!;
        const out = outKnn ? outKnn[r * nModels + m]! : outputTokens[m]!.mean;
        expectedCost[r * nModels + m] = expectedCostUsd({
          inputTokens: inputTokens[item]!,
          expectedOutputTokens: Number.isFinite(out) ? out : 0,
          price: prices[m]!,
        });
      }
    });
    return { models: ds.models, nItems: rows.length, p, expectedCost, y, cost };
  };
  return {
    val: make(splits.val),
    test: make(splits.test),
    outputTokens,
    outputTokensMethod: inputs.embeddings
      ? `mean implied output tokens of the ${inputs.k ?? 25} most similar TRAIN prompts (cosine of embeddings), per model`
      : "each model's mean implied output tokens over TRAIN",
  };
}

/**
 * Each (row, model)'s expected output tokens from the k most similar train prompts (their implied output tokens),
 * or undefined without embeddings.
 */
function knnOutputTokensOf(
  inputs: ReplayTableInputs,
  full: ReplayTable,
  rows: readonly number[],
): Float64Array | undefined {
  if (!inputs.embeddings) return undefined;
  const { splits, prices, inputTokens } = inputs;
  const nModels = inputs.dataset.models.length;
  return knnOutputTokens({
    vectors: inputs.embeddings.vectors,
    dim: inputs.embeddings.dim,
    trainRows: splits.train,
    targetRows: rows,
    nModels,
    k: inputs.k ?? 25,
    known: (r, m) => {
      const item = splits.train[r]!;
      const c = full.cost[item * nModels + m]!;
      if (Number.isNaN(full.y[item * nModels + m]!) || !Number.isFinite(c) || !(prices[m]!.outputPer1M > 0)) return NaN;
      return Math.max(0, ((c - (inputTokens[item]! * prices[m]!.inputPer1M) / 1e6) * 1e6) / prices[m]!.outputPer1M);
    },
  });
}

function denseRecorded(ds: CorrectnessDataset, rows: readonly number[]): ReplayTable {
  const nModels = ds.models.length;
  const y = new Float64Array(rows.length * nModels).fill(NaN);
  const cost = new Float64Array(rows.length * nModels).fill(NaN);
  const L = ds.labels;
  rows.forEach((item, r) => {
    for (let e = L.offsets[item]!; e < L.offsets[item + 1]!; e++) {
      y[r * nModels + L.model[e]!] = L.y[e]!;
      cost[r * nModels + L.model[e]!] = L.cost ? L.cost[e]! : NaN;
    }
  });
  return { models: ds.models, nItems: rows.length, p: new Float64Array(0), expectedCost: new Float64Array(0), y, cost };
}
