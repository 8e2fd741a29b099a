/**
 * The protocol of ../shared/BENCHMARK.md, "Agent runs with real outcomes (run-level)": the hash u(), the folds, the
 * stream order, the outcome draws, the run cost assumption, the anonymous model names, and what the router is given of
 * a run table (its models' run costs, a task's id, text and hint).
 */
import type { CorrectnessDataset } from "../../data/types.js";
import { DatasetFormatError, ValidationError } from "../../errors.js";
import { unitHash } from "../../data/split.js";
import { DEFAULT_RUN_TOKENS, type RunModelConfig } from "../options.js";

/** u(key): the first 8 hex digits of sha256(utf8(key)) as an unsigned 32-bit integer, divided by 2^32. */
export function u(key: string): number {
  return unitHash(key);
}

/** Cross-fit fold (0..folds-1) of item `id` for seed `s`: floor(folds * u("D/ID/fold/s")). */
export function foldOf(dataset: string, id: string, seed: number, folds = 5): number {
  return Math.floor(folds * u(`${dataset}/${id}/fold/${seed}`));
}

/** Item indices in stream order for seed `s`: ascending u("D/ID/order/s"). */
export function streamOrder(dataset: string, ids: readonly string[], seed: number): number[] {
  const keys = ids.map((id) => u(`${dataset}/${id}/order/${seed}`));
  return ids.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
}

/** Whether the run of model `model` on item `id` succeeds in the stream of seed `s`: u("D/ID/M/s") < rate. */
export function drawnOutcome(dataset: string, id: string, model: string, seed: number, rate: number): boolean {
  return u(`${dataset}/${id}/${model}/${seed}`) < rate;
}

/** Anonymous names m01, m02, ... given in alphabetical order of the real ids (so no order of the folder leaks). */
export function anonymousNames(models: readonly string[]): Map<string, string> {
  const width = Math.max(2, String(models.length).length);
  const sorted = [...models].sort();
  return new Map(sorted.map((m, i) => [m, `m${String(i + 1).padStart(width, "0")}`]));
}

/** The run-level view of a dataset: per item and model, the success rate; per model, the cost of one run. */
export interface RunTable {
  readonly name: string;
  readonly ids: readonly string[];
  readonly texts: readonly string[];
  /** Each item's category (the router's task hint), where the folder has one. */
  readonly hints?: readonly (string | undefined)[];
  readonly models: readonly string[];
  /** rate[i][m], NaN where the model has no label on the item. */
  readonly rate: readonly Float64Array[];
  /** USD of one run of each model. */
  readonly runCost: Float64Array;
  /** How run costs were obtained, printed with every cost. */
  readonly costAssumption: string;
}

/**
 * The run table of a dataset. Run cost, per model (../shared/BENCHMARK.md: "Unless the folder gives a cost"): the mean
 * recorded `cost_usd` of the model's runs where the folder gives any (blank cells left out), else 400,000 input + 40,000
 * output tokens at its `models.csv` prices (no cached input); NaN for a model with neither (`loadRunTable` names them).
 */
export function runTable(ds: CorrectnessDataset): RunTable {
  const M = ds.models.length;
  const rate = ds.items.map(() => new Float64Array(M).fill(Number.NaN));
  const costSum = new Float64Array(M);
  const costN = new Float64Array(M);
  for (let i = 0; i < ds.items.length; i++) {
    for (let k = ds.labels.offsets[i]!; k < ds.labels.offsets[i + 1]!; k++) {
      const m = ds.labels.model[k]!;
      rate[i]![m] = ds.labels.y[k]!;
      const c = ds.labels.cost?.[k];
      if (c !== undefined && Number.isFinite(c)) {
        costSum[m]! += c;
        costN[m]! += 1;
      }
    }
  }
  const tokens = DEFAULT_RUN_TOKENS;
  const runCost = Float64Array.from(ds.models, (model, m) => {
    if (costN[m]! > 0) return costSum[m]! / costN[m]!;
    const price = ds.prices && Object.hasOwn(ds.prices, model) ? ds.prices[model] : undefined;
    if (!price) return Number.NaN;
    return (tokens.input * price.inputPer1M + tokens.output * price.outputPer1M) / 1e6;
  });
  const recorded = ds.models.filter((_, m) => costN[m]! > 0);
  const priced = ds.models.filter((_, m) => costN[m] === 0 && Number.isFinite(runCost[m]!));
  const fromCosts = "the mean recorded cost_usd of the model's runs in labels";
  const fromPrices = `${tokens.input.toLocaleString("en-US")} input + ${tokens.output.toLocaleString("en-US")} output tokens at models.csv prices (no cached input)`;
  return {
    name: ds.name,
    ids: ds.items.map((it) => it.id),
    texts: ds.items.map((it) => it.text),
    hints: ds.items.map((it) => it.category),
    models: ds.models,
    rate,
    runCost,
    costAssumption:
      recorded.length > 0 && priced.length > 0
        ? `run cost = ${fromCosts} for ${recorded.join(", ")}; ${fromPrices} for ${priced.join(", ")}`
        : `run cost = ${recorded.length > 0 ? fromCosts : fromPrices}`,
  };
}

/** The router's models: each under its name in `names`, with its run cost. */
export function modelsConfig(table: RunTable, names: ReadonlyMap<string, string>): Record<string, RunModelConfig> {
  return Object.fromEntries(table.models.map((m, k) => [names.get(m)!, { runCost: table.runCost[k]! }]));
}

/** The task of item `i` as the router sees it: id, text and (with hints) its category. */
export function taskAt(table: RunTable, i: number, hints: boolean): { id: string; text: string; hint?: string } {
  const hint = hints ? table.hints?.[i] : undefined;
  return { id: table.ids[i]!, text: table.texts[i]!, ...(hint !== undefined && { hint }) };
}

/**
 * Refuse `hints` on a table where no item has a category: the option would change nothing, without a word (the
 * folder's items table has no `category` column, or every cell of it is blank). A category "__proto__" is refused too,
 * naming its item, as the router refuses it as a hint (only later, and without the item).
 */
export function assertHints(table: RunTable): void {
  const proto = table.hints?.indexOf("__proto__") ?? -1;
  if (proto >= 0) {
    throw new ValidationError(
      `hints: item "${table.ids[proto]}" of ${table.name} has the category "__proto__", which cannot name a task hint ` +
        `(JavaScript's prototype key); rename that category, or leave --hints (hints: true) out.`,
      { path: "hints", details: { dataset: table.name, item: table.ids[proto] } },
    );
  }
  if (table.hints?.some((h) => h !== undefined)) return;
  throw new ValidationError(
    `hints: no item of ${table.name} has a category (its items table has no "category" column, or every cell of it is ` +
      `blank), so there is no task hint to give the router; add a category column to the items table, or leave ` +
      `--hints (hints: true) out.`,
    { path: "hints", details: { dataset: table.name } },
  );
}

/** How many of a table's (task, model) pairs have a label, and where the gaps are. */
export interface Coverage {
  /** Tasks x models. */
  readonly pairs: number;
  /** Pairs without a label (an unobserved run: never scored, the model is kept off that task). */
  readonly missing: number;
  /** Tasks with at least one model unlabelled. */
  readonly tasksWithGaps: number;
  /** Models unlabelled on at least one task. */
  readonly modelsWithGaps: number;
}

/** The coverage of a table's labels (see {@link Coverage}). */
export function coverageOf(table: RunTable): Coverage {
  const tasks = new Set<number>();
  const models = new Set<number>();
  let missing = 0;
  table.rate.forEach((row, i) =>
    row.forEach((r, m) => {
      if (Number.isFinite(r)) return;
      missing++;
      tasks.add(i);
      models.add(m);
    }),
  );
  const pairs = table.ids.length * table.models.length;
  return { pairs, missing, tasksWithGaps: tasks.size, modelsWithGaps: models.size };
}

/**
 * For each item, `route`'s options that keep off it the models without a label on it, under their names in `names`
 * (`exclude`; none, `{}`, where every model has one): every policy of the replay routes among the observed models.
 */
export function observedOnly(table: RunTable, names: ReadonlyMap<string, string>): { exclude?: string[] }[] {
  return table.rate.map((row) => {
    const exclude = table.models.filter((_, m) => !Number.isFinite(row[m]!)).map((m) => names.get(m)!);
    return exclude.length > 0 ? { exclude } : {};
  });
}

/**
 * Refuse a table with a task no model has a label on: no policy can run it (each routes among the models observed on
 * the task, as ../shared/data/PITFALLS.md says of an unobserved pair), so it would be dropped from every figure.
 * Pairs without a label elsewhere are allowed: an unobserved run is never scored as a failure.
 */
export function assertEveryTaskLabelled(table: RunTable): void {
  const empty = table.ids.filter((_, i) => table.rate[i]!.every((r) => !Number.isFinite(r)));
  if (empty.length === 0) return;
  const shown = empty.slice(0, 5).map((id) => `"${id}"`);
  throw new DatasetFormatError(
    `${table.name}: ${empty.length} of the ${table.ids.length} tasks have no label for any model ` +
      `(${shown.join(", ")}${empty.length > shown.length ? ", ..." : ""}), so no policy can run them: add their ` +
      `labels, or leave those tasks out of the items table.`,
    { details: { tasks: empty.length, first: empty.slice(0, 5) } },
  );
}

/**
 * The success rate of `model` on `item`, which the replay only asks of an observed pair (the router, Thompson sampling
 * and the references are kept off unobserved ones): a missing label is an internal error, never a failed run.
 */
export function observedRate(table: RunTable, item: number, model: number): number {
  const r = table.rate[item]![model]!;
  if (!Number.isFinite(r)) {
    throw new Error(`irt-router replay: "${table.models[model]}" has no label on "${table.ids[item]}" (a bug)`);
  }
  return r;
}

/** The success rate of `model` on `item`, a missing label counted as 0 (for complete tables, e.g. Terminal-Bench's). */
export function rateOr0(table: RunTable, item: number, model: number): number {
  const r = table.rate[item]![model]!;
  return Number.isFinite(r) ? r : 0;
}
