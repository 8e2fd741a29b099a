/**
 * From loaded datasets and their embeddings to training data: models joined across datasets by the alias
 * table (canonical ids), rows concatenated, each dataset split by the protocol's rule with its own name.
 */
import { splitIndices } from "../data/split.js";
import type { CorrectnessDataset } from "../data/types.js";
import { ValidationError } from "../errors.js";
import { canonicalModelId, MODEL_ALIASES, type ModelAlias } from "./aliases.js";
import type { ModelStats } from "./catalog.js";
import type { EmbeddedLabels } from "./train.js";

/** A dataset with one embedding per item (row-major nItems x dim, in item order). */
export interface EmbeddedDataset {
  readonly dataset: CorrectnessDataset;
  readonly vectors: Float32Array;
  readonly dim: number;
}

/** Where one dataset's rows sit in the joined data. */
export interface DatasetPart {
  readonly name: string;
  readonly sha256: string;
  /** Rows (into the joined data) of each split. */
  readonly rows: { train: number[]; val: number[]; test: number[] };
  /** Joined model index of each of the dataset's own model columns. */
  readonly modelIndex: readonly number[];
  readonly models: readonly string[];
}

/** Training data built from one or more datasets. */
export interface JoinedData {
  readonly data: EmbeddedLabels;
  readonly split: { train: number[]; val: number[]; test: number[] };
  readonly parts: DatasetPart[];
  /** Per joined model: names, sources, training-label count and accuracy (train split only). */
  readonly stats: ModelStats[];
}

/** How models of different datasets are joined. */
export interface JoinOptions {
  /**
   * true (default): the same model (by canonical id) in two datasets shares one ability vector.
   * false: each (model, dataset) pair gets its own ability row, still under the model's canonical id;
   * use it when the datasets scored models under different protocols (few-shot CoT, zero-shot,
   * log-likelihood), where one shared ability is a compromise (docs/scorer.md). {@link buildCatalog}
   * then gives the row from the dataset with the most models the canonical id and the others `<id>@<dataset>`.
   */
  readonly shareAbilities?: boolean;
}

/**
 * One dataset's labels with its embeddings as training data, its models as the dataset lists them (no joining by
 * canonical id: see {@link joinDatasets} for that).
 *
 * @example
 * const data = embeddedLabelsOf(dataset, vectors, 512);
 * const trained = await trainIrtMoe(tf, data, split);
 */
export function embeddedLabelsOf(
  dataset: CorrectnessDataset,
  X: Float32Array,
  dim: number,
): EmbeddedLabels & { readonly models: readonly string[] } {
  return {
    X,
    dim,
    nItems: dataset.items.length,
    nModels: dataset.models.length,
    offsets: dataset.labels.offsets,
    model: dataset.labels.model,
    y: dataset.labels.y,
    models: dataset.models,
  };
}

/**
 * Joins datasets into one training problem. Model columns map to canonical ids through the alias
 * table, so the same model in two datasets shares one ability vector (unless `shareAbilities` is false).
 *
 * @example
 * const joined = joinDatasets([{ dataset, vectors, dim: 512 }]);
 * const trained = await trainIrtMoe(tf, joined.data, joined.split);
 */
export function joinDatasets(
  parts: readonly EmbeddedDataset[],
  table: readonly ModelAlias[] = MODEL_ALIASES,
  options: JoinOptions = {},
): JoinedData {
  const shared = options.shareAbilities ?? true;
  if (parts.length === 0) throw new ValidationError("joinDatasets needs at least one dataset", { path: "datasets" });
  const dim = parts[0]!.dim;
  const ids: string[] = [];
  const idIndex = new Map<string, number>();
  const names: Set<string>[] = [];
  const sources: Set<string>[] = [];
  const { nItems, nObs } = checkedSizes(parts, dim);
  const X = new Float32Array(nItems * dim);
  const offsets = new Int32Array(nItems + 1);
  const model = new Int32Array(nObs);
  const y = new Float32Array(nObs);
  const split = { train: [] as number[], val: [] as number[], test: [] as number[] };
  const out: DatasetPart[] = [];
  let row = 0;
  let obs = 0;
  for (const p of parts) {
    const ds = p.dataset;
    const modelIndex = ds.models.map((name) => {
      const id = canonicalModelId(name, table);
      const key = shared ? id : `${id}\u0000${ds.name}`;
      let m = idIndex.get(key);
      if (m === undefined) {
        m = ids.length;
        ids.push(id);
        idIndex.set(key, m);
        names.push(new Set());
        sources.push(new Set());
      }
      names[m]!.add(name);
      sources[m]!.add(ds.name);
      return m;
    });
    const s = splitIndices(
      ds.name,
      ds.items.map((it) => it.id),
    );
    const rows = {
      train: s.train.map((i) => i + row),
      val: s.val.map((i) => i + row),
      test: s.test.map((i) => i + row),
    };
    X.set(p.vectors, row * dim);
    for (let i = 0; i < ds.items.length; i++) {
      for (let j = ds.labels.offsets[i]!; j < ds.labels.offsets[i + 1]!; j++) {
        model[obs] = modelIndex[ds.labels.model[j]!]!;
        y[obs++] = ds.labels.y[j]!;
      }
      offsets[row + i + 1] = obs;
    }
    split.train.push(...rows.train);
    split.val.push(...rows.val);
    split.test.push(...rows.test);
    out.push({ name: ds.name, sha256: ds.source.sha256, rows, modelIndex, models: ds.models });
    row += ds.items.length;
  }
  const labels = { offsets, model, y };
  const stats = modelStats(parts, table, { ids, names, sources }, labels, split.train);
  return { data: { X, dim, nItems, nModels: ids.length, offsets, model, y, models: ids }, split, parts: out, stats };
}

/** The datasets' total items and labels, after checking each one's embeddings; a ValidationError names the dataset. */
function checkedSizes(parts: readonly EmbeddedDataset[], dim: number): { nItems: number; nObs: number } {
  let nItems = 0;
  let nObs = 0;
  for (const [k, p] of parts.entries()) {
    if (p.dim !== dim)
      throw new ValidationError(`datasets[${k}] (${p.dataset.name}) has embedding dim ${p.dim}, the first has ${dim}`, {
        path: `datasets.${k}.dim`,
      });
    if (p.vectors.length !== p.dataset.items.length * p.dim)
      throw new ValidationError(
        `datasets[${k}] (${p.dataset.name}): ${p.vectors.length} vector values for ${p.dataset.items.length} items x dim ${p.dim}`,
        { path: `datasets.${k}.vectors` },
      );
    nItems += p.dataset.items.length;
    nObs += p.dataset.labels.y.length;
  }
  return { nItems, nObs };
}

/** Each ability row's training statistics: its column names, sources, train label count and accuracy, and price. */
function modelStats(
  parts: readonly EmbeddedDataset[],
  table: readonly ModelAlias[],
  rows: { ids: readonly string[]; names: readonly Set<string>[]; sources: readonly Set<string>[] },
  labels: { offsets: Int32Array; model: Int32Array; y: Float32Array },
  train: readonly number[],
): ModelStats[] {
  const { ids, names, sources } = rows;
  const { offsets, model, y } = labels;
  const n = new Float64Array(ids.length);
  const sum = new Float64Array(ids.length);
  for (const i of train) {
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) {
      n[model[j]!]!++;
      sum[model[j]!]! += y[j]!;
    }
  }
  const prices = new Map<string, { inputPer1M: number; outputPer1M: number }>();
  for (const p of parts)
    for (const [name, price] of Object.entries(p.dataset.prices ?? {}))
      prices.set(canonicalModelId(name, table), price);
  return ids.map((id, m) => ({
    id,
    names: [...names[m]!],
    sources: [...sources[m]!],
    nLabels: n[m]!,
    accuracy: n[m]! > 0 ? sum[m]! / n[m]! : NaN,
    ...(prices.has(id) ? { price: prices.get(id)! } : {}),
  }));
}
