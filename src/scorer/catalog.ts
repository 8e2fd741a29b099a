import type { ModelPrice } from "../data/types.js";
import { UnknownModelError } from "../errors.js";
import { aliasIndex, guessProvider, MODEL_ALIASES, type ModelAlias } from "./aliases.js";
import type { CatalogEntry } from "./types.js";
import { editDistance } from "../util/edit-distance.js";

/** Training statistics of one model (a row of theta). */
export interface ModelStats {
  /** Id the model was trained under (canonical). */
  readonly id: string;
  /** Column names it had in the training datasets. */
  readonly names: readonly string[];
  readonly sources: readonly string[];
  readonly nLabels: number;
  readonly accuracy: number;
  readonly price?: ModelPrice;
}

/**
 * Catalog entries for the rows of theta: canonical id, aliases (alias table + dataset names), provider,
 * sources, ability vector, label count, observed accuracy, price (dataset price first, then alias table).
 */
export function buildCatalog(
  theta: Float32Array,
  abilityDim: number,
  stats: readonly ModelStats[],
  table: readonly ModelAlias[] = MODEL_ALIASES,
): CatalogEntry[] {
  const index = aliasIndex(table);
  // Several rows under one id (per-source abilities, joinDatasets shareAbilities: false): the row from the
  // dataset with the most models (its ability is placed among the most peers; ties: more labels) keeps the id
  // and every alias; each other row is `<id>@<dataset>`. Every row of such a model also answers to
  // `<column name>@<dataset>`, so dataset-aware callers reach the row trained on that dataset.
  const rowsOf = new Map<string, number[]>();
  stats.forEach((s, m) => rowsOf.set(s.id, [...(rowsOf.get(s.id) ?? []), m]));
  const modelsPerSource = new Map<string, number>();
  for (const s of stats) for (const src of s.sources) modelsPerSource.set(src, (modelsPerSource.get(src) ?? 0) + 1);
  const peers = (m: number) => Math.max(...stats[m]!.sources.map((src) => modelsPerSource.get(src) ?? 0));
  const better = (a: number, b: number) =>
    peers(b) > peers(a) || (peers(b) === peers(a) && stats[b]!.nLabels > stats[a]!.nLabels);
  const primary = new Map([...rowsOf].map(([id, rows]) => [id, rows.reduce((a, b) => (better(a, b) ? b : a))]));
  return stats.map((s, m) => {
    const known = index.get(s.id);
    const split = rowsOf.get(s.id)!.length > 1;
    const qualified = split ? s.names.flatMap((n) => s.sources.map((src) => `${n}@${src}`)) : [];
    const isPrimary = primary.get(s.id) === m;
    const id = isPrimary ? s.id : `${s.id}@${s.sources.join("+")}`;
    const base = isPrimary ? [...(known?.aliases ?? []), ...s.names] : [];
    const aliases = [...new Set([...base, ...qualified])].filter((a) => a !== id);
    const provider = known?.provider ?? guessProvider(s.names[0] ?? s.id);
    const price = s.price ?? known?.price;
    return {
      id,
      aliases,
      ...(provider ? { provider } : {}),
      sources: [...s.sources],
      ability: theta.slice(m * abilityDim, (m + 1) * abilityDim),
      nLabels: s.nLabels,
      accuracy: s.accuracy,
      ...(price ? { price } : {}),
    };
  });
}

/**
 * The names to score a dataset's model columns under: `<column>@<dataset>` where the catalog has a row
 * trained on that dataset under that name (per-source abilities), else the column name itself.
 *
 * @example
 * ```ts
 * const names = datasetModelNames(scorer.models, ds.models, ds.name);
 * const scores = await scorer.predict(vector, names);
 * ```
 */
export function datasetModelNames(
  catalog: readonly CatalogEntry[],
  models: readonly string[],
  dataset: string,
): string[] {
  const known = new Set(catalog.flatMap((e) => [e.id, ...e.aliases]));
  return models.map((m) => (known.has(`${m}@${dataset}`) ? `${m}@${dataset}` : m));
}

/** Resolves model ids and aliases to catalog rows; unknown names raise UNKNOWN_MODEL with close matches. */
export class ModelResolver {
  private readonly exact = new Map<string, number>();
  private readonly folded = new Map<string, number>();

  constructor(private readonly catalog: readonly CatalogEntry[]) {
    // Ids first, so a model's own id always resolves to its row even when another entry lists it as an alias.
    const add = (name: string, m: number) => {
      if (!this.exact.has(name)) this.exact.set(name, m);
      const f = name.toLowerCase();
      if (!this.folded.has(f)) this.folded.set(f, m);
    };
    catalog.forEach((e, m) => add(e.id, m));
    catalog.forEach((e, m) => e.aliases.forEach((a) => add(a, m)));
  }

  /** Row of theta for an id or alias (exact, then case-insensitive). */
  indexOf(name: string): number {
    const m = this.exact.get(name) ?? this.folded.get(name.toLowerCase());
    if (m === undefined) throw new UnknownModelError(name, this.suggest(name));
    return m;
  }

  /** Up to 5 catalog ids whose id or an alias is close to `name`. */
  suggest(name: string): string[] {
    const q = name.toLowerCase();
    const scored = this.catalog.map((e) => {
      let best = Infinity;
      for (const n of [e.id, ...e.aliases]) {
        const c = n.toLowerCase();
        const d = c.includes(q) || q.includes(c) ? 0 : editDistance(q, c) / Math.max(q.length, c.length);
        best = Math.min(best, d);
      }
      return { id: e.id, d: best };
    });
    return scored
      .filter((s) => s.d <= 0.5)
      .sort((a, b) => a.d - b.d)
      .slice(0, 5)
      .map((s) => s.id);
  }
}
